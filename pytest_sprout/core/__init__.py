"""The vocabulary every other folder speaks, in plain Python (no pytest, no heavy imports): the data
model (`model`: `Case`, `Passage`, `Sentence`, `Answer`, `GoldenItem`, `Verdict`), the tier protocol
(`tier`), the item row that travels from a worker to the controller (`row`), the errors a judge or a
setting may raise (`errors`), pure checks of option values (`settings`), statistics (`stats`: Wilson
intervals, tallies, agreement, balanced accuracy), the metric table (`table`), the dataset identity
(`identity`: dataset hash, case fingerprints, reading a frozen JSON file), `secret` (`SecretStr`),
`util` and `version`."""
