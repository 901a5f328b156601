"""Morphology and meaning for the lexical judge, from maintained packages, loaded on first use."""
