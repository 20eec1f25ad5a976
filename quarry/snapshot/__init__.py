"""Source snapshots: content-addressed ingestion of repositories and corpora (the DAG's first stage).

The stage is quarry.stages.snapshot; driver.py plans, caps and seals; process.py snapshots one
origin; manifest.py and listing.py describe and list what a snapshot holds. The package itself
imports nothing, so a reader of snapshots (listing.py) does not load the snapshot's machinery.
"""
