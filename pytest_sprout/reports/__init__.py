"""What a run writes and prints from its rows, bottom to top: `safe_write` (every file written whole
or not at all, report paths checked before the run), `markdown` (the views read from the JSON report:
outcome counts, failure reasons, per-suite numbers, the Markdown summary), `json_report` (the JSON
report, streamed row by row), `html/` (the self-contained HTML page) and `write` (every report a run
asks for). Reports read rows and metric rows only; they never reach back into the controller or the
session."""
