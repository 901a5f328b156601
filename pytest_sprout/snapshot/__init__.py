"""The snapshot guard: `file` is `sprout.snapshot.json` (the pinned dataset hash, case counts and every
registered artifact), `guard` applies it to a run (the currency check, golden-set record and replay,
registering reports)."""
