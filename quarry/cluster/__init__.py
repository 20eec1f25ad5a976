"""Starting Quarry's Dask workers on a cluster: batch-system job scripts (Slurm, PBS, SGE, written by
dask-jobqueue) and a Kubernetes manifest, both running one worker command (quarry.cluster.worker)."""
