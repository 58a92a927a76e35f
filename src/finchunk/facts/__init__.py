"""Point-in-time XBRL fact store (see ``finchunk.facts.store``)."""
