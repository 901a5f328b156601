"""The self-contained HTML report: `page` writes the document (styles, script, the item list) and
`sections` builds its summary sections (interval plots, suites, kill rates, agreement)."""
