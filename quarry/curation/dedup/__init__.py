"""Exact and MinHash near deduplication, built to scale out.

Per shard (parallel): ``index.index_shard`` writes content hashes, signatures, band keys and
survival keys, each shard's files by origin. Per partition (parallel), each holding one range of
its key space: forks and copies of a repository collapse (``repository_partitions``), exact
copies group (``document_partitions``), band collisions are found and verified (``partition``).
Once: the partitions' forests merge into clusters (a label per clustered document). Per
partition: each cluster keeps its first copy (``document_partitions``). Per shard (parallel):
``stage.filter_shard`` writes the survivors, from its slice of every partition's decisions
(``decisions``). quarry.stages.dedup describes it all as one stage; ``cluster.cluster_index``
decides the same in one process (the tests' reference).
"""

from quarry.curation.dedup.config import DedupConfig
from quarry.curation.dedup.minhash import MinHasher, band_keys, choose_bands, estimated_jaccard
from quarry.curation.dedup.shingles import normalized_content_hash, shingles, words
from quarry.curation.dedup.shards import filter_shard

__all__ = ["DedupConfig", "MinHasher", "band_keys", "choose_bands", "estimated_jaccard", "filter_shard",
           "normalized_content_hash", "shingles", "words"]
