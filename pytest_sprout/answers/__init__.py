"""Where answers come from. `source` (`AnswerSource`) asks the system `--sprout-concurrency` at a time,
in threads or on one event loop, with timeouts and retries; `wiring` builds that source for a run
(the system factory, retry settings, answer reuse, closing); `cache` is the one SQLite file of
answers and verdicts keyed by content and settings; `golden` records and replays a golden set."""
