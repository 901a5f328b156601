"""The aggregating process only (a plain run, or the xdist controller): `controller` (`Controller`,
kept in `config.stash` like junitxml's LogXML: each item's row from its test report, tallied, every
selected item ending as a row, the reports written at the end), `rows` (the rows, kept as the
compact JSON they arrived as), `ledger` (which selected items have a row), `gates` and `unscored`
(pass or fail of the run)."""
