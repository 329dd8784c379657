"""Annotators of the RDF route: text -> entities."""
