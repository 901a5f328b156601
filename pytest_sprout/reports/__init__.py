"""What a run writes and prints from its rows: the JSON report streamed row by row (`json_report`), the
Markdown summary for a CI job (`markdown`) and the self-contained HTML report (`html/`). Reports read
rows and metric rows only; they never reach back into the controller or the session."""
