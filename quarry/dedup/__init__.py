"""Exact and MinHash near deduplication, built to scale out.

Per shard (parallel): ``index.index_shard`` writes content hashes, signatures and band keys.
Once: ``cluster.prune`` collapses forks and copies of a repository
(``repository.repository_duplicates``) and groups exact copies. Per partition (parallel):
``partition`` finds the band collisions in one range of band keys and verifies them. Once: the
partitions' clusters merge and ``cluster.decide_near`` decides which copy survives. Per shard
(parallel): ``stage.filter_shard`` writes the survivors. quarry.stages.dedup describes it all as
one stage.
"""

from quarry.dedup.config import DedupConfig
from quarry.dedup.minhash import MinHasher, band_keys, choose_bands, estimated_jaccard
from quarry.dedup.shingles import normalized_content_hash, shingles, words
from quarry.dedup.stage import filter_shard

__all__ = ["DedupConfig", "MinHasher", "band_keys", "choose_bands", "estimated_jaccard", "filter_shard",
           "normalized_content_hash", "shingles", "words"]
