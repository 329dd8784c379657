"""The dump index: ingest, segments, columns, its lexicon."""
