"""Knowledge sources of the RDF route."""
