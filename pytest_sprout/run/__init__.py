"""The worker half of a session, on whatever process runs items: `worker` (`Run`: the system, the
answers, the tiers built from settings, `run_item` turning one item into a `Row`), `upcoming` (the
cases coming up, read by answer prefetching and tier batching) and `collect` (a suite file becomes one
pytest item per case and tier)."""
