"""What every part of Quarry leans on and that knows nothing of stages or records: atomic
files, content hashes, the project lock, worker cores and pools, progress, plots."""
