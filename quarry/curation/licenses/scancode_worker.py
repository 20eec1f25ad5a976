"""ScanCode license detection worker: runs INSIDE the ScanCode virtualenv, never imports quarry.

ScanCode cannot share Quarry's environment, so Quarry starts this script with the ScanCode
interpreter and talks to it in JSON lines: one request per line on stdin, one reply per line on
stdout. The license index is loaded once at start-up; each request detects a batch of texts.

    start-up reply  {"ready": true, "version": "32.5.0", "index_seconds": 6.1}
    request         {"op": "detect", "texts": ["...", "..."]}
    reply           {"ok": true, "results": [{"expression": ..., "spdx": ..., "score": ...,
                      "keys": {scancode key: {"spdx": id, "category": ScanCode category}},
                      "matches": [{"expression", "score", "matcher", "rule", "lines",
                                   "tokens", "coverage",
                                   "kind": text|notice|reference|tag|intro|clue}]}, ...]}
    request         {"op": "settles", "texts": [...]}
    reply           {"ok": true, "settled": [true, false, ...]}   (exact matching alone answers it)
    request         {"op": "quit"}

`python scancode_worker.py --serve SOCKET [--idle SECONDS]` is the same worker as a server: it loads
the index once, listens on the Unix socket SOCKET and forks a child per connection, which speaks the
protocol above over the connection (its start-up reply adds "shared": true, "pid", "server_pid" and
the server's "server_index_seconds"; "index_seconds" is 0: the child loaded nothing). The children
share the index pages copy-on-write, so one index serves every worker of the machine. The server
writes its own start-up reply ({"ready": true, "server_pid", ...}, or {"ready": false, "error"}) on
stdout once it listens, then closes stdout. It exits when no child has been running for SECONDS
(default 120), when SOCKET is removed or replaced, or on SIGTERM; a child exits when its connection
closes. quarry.curation.licenses.engine starts and finds the server.

`python scancode_worker.py --build-index` builds (or loads) ScanCode's index cache and exits:
the one-time set-up step, so the first detection does not pay for it.

QUARRY_SCANCODE_PROFILE=<folder>: the worker runs under cProfile and writes
<folder>/scancode-<pid>.prof as it ends (pstats reads it).
"""

import atexit
import bisect
import gc
import heapq
import json
import os
import select
import shutil
import signal
import socket
import stat
import struct
import sys
import tempfile
import time
import traceback

# Run by path, this script's folder heads sys.path; its sibling modules must not shadow ScanCode's.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

# ScanCode makes a temp folder under SCANCODE_TEMP (default: the system's) when it is imported and
# never removes it: give it one this process removes as it ends, which it does when its parent closes
# stdin, however the parent ended.
_SCRATCH = tempfile.mkdtemp(prefix="quarry-scancode-")
os.environ["SCANCODE_TEMP"] = _SCRATCH
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)

MAX_MATCHES = 8  # per text, enough evidence to explain a detection
# A detection made only of short references ("GPL-compatible" in a history table, "see the BSD
# license") does not say what governs the text when a real license text or notice is also there.
SUBSTANTIVE_TOKENS = 20
DEADLINE_S = 120.0  # per text: ScanCode returns what it matched so far on a pathological input


def load_engine():
    """ScanCode's index, licence db and licensing, and the seconds they took. The collector stays off
    while the pickled index loads: its millions of new objects would set off collections that find
    nothing to free (half the load time)."""
    start = time.perf_counter()
    enabled = gc.isenabled()
    gc.disable()
    try:
        from licensedcode.cache import get_index, get_licenses_db, get_licensing

        index = get_index()
        db = get_licenses_db()
        licensing = get_licensing()
        use_candidate_filter(index)
        rule_neighbours(index)
    finally:
        if enabled:
            gc.enable()
    return index, db, licensing, time.perf_counter() - start


def scancode_version():
    try:
        from importlib.metadata import version

        return version("scancode-toolkit")
    except Exception:  # noqa: BLE001 - version is informative only
        return "unknown"


def describe_key(db, key):
    lic = db.get(key)
    if lic is None:
        return {"spdx": "LicenseRef-scancode-" + key, "category": "Unstated License"}
    return {"spdx": lic.spdx_license_key or ("LicenseRef-scancode-" + key), "category": lic.category or ""}


def detect_one(index, db, licensing, text, deadline_s=DEADLINE_S, plain=False):
    """ScanCode's answer for ``text``. Exact matching (whole-text hash, SPDX ids, Aho-Corasick over
    every rule) runs first; its answer stands when it settles the text (``settled``), and only
    otherwise does ScanCode go on to approximate matching, which compares the rest of the text with
    every rule and costs 97% of the time on headers. ``plain``: always the full matching."""
    from licensedcode.cache import build_spdx_license_expression

    expressions = []
    matches = []
    weighted = 0.0
    length = 0
    deadline = time.time() + deadline_s
    _PLAIN[0] = plain
    try:
        detections = None if plain else _detections(index, text, deadline, approximate=False)
        if detections is None or not settled(index, text, detections):
            detections = _detections(index, text, deadline, approximate=True)
    finally:
        _PLAIN[0] = False
    if any(is_substantive(d) for d in detections):
        detections = [d for d in detections if is_substantive(d)]
    for detection in detections:
        expressions.append(detection.license_expression)
        for match in detection.matches:
            size = max(1, match.len())
            weighted += match.score() * size
            length += size
            if len(matches) < MAX_MATCHES:
                matches.append({
                    "expression": match.rule.license_expression,
                    "score": round(match.score(), 2),
                    "matcher": match.matcher,
                    "rule": match.rule.identifier,
                    "lines": [match.start_line, match.end_line],
                    "tokens": match.len(),
                    "coverage": round(match.coverage(), 2),
                    "kind": rule_kind(match.rule),
                })
    if not expressions:
        return {"expression": None, "spdx": None, "score": 0.0, "keys": {}, "matches": []}
    combined = combine_expressions(expressions, licensing)
    spdx = build_spdx_license_expression(combined, licensing=licensing)
    keys = sorted(set(licensing.license_keys(combined, unique=True)))
    return {
        "expression": str(combined),
        "spdx": str(spdx),
        "score": round(weighted / length, 2) if length else 0.0,
        "keys": {key: describe_key(db, key) for key in keys},
        "matches": matches,
    }


def settles(index, text, deadline_s=DEADLINE_S):
    """Whether exact matching alone answers ``text`` (``settled``), as detect_one decides it."""
    return settled(index, text, _detections(index, text, time.time() + deadline_s, approximate=False))


def combine_expressions(expressions, licensing):
    """packagedcode.utils.combine_expressions(expressions, "AND", unique=True, licensing), which it
    is, without importing packagedcode and every package handler with it (half a second a process)."""
    from license_expression import combine_expressions as combine

    return expressions and str(combine(expressions, "AND", True, licensing)) or None


def _detections(index, text, deadline, approximate):
    from licensedcode.detection import detect_licenses

    return [d for d in detect_licenses(index=index, query_string=text, deadline=deadline, approximate=approximate)
            if d.license_expression is not None]  # None: a clue, not a detection


# Licence keys that name no particular licence (gpl-1.0-plus: the GPL of no stated version): an exact
# match to one of these rules is a hint that approximate matching may still find the licence the
# text holds, and then drops the hint.
GENERIC_KEYS = ("unknown", "warranty-disclaimer", "other-permissive", "other-copyleft", "free-unknown", "generic",
                "proprietary", "commercial", "gpl-1.0-plus")
MAX_UNMATCHED_LEGALESE = 10  # legal words exact matching left over; more, and the text may hold another licence


def settled(index, text, detections):
    """Exact matches settle a text when every one is substantive (a licence text, or 20 tokens or
    more), none names a generic key, and the legal words they leave unmatched are few (at most
    MAX_UNMATCHED_LEGALESE) and say nothing the matched licence's text lacks: none lies between two
    matched spans (a clause inside the licence text that no exact rule covered), none completes a
    neighbour of a matched rule (see Neighbours: BSD-2-Clause and the no-endorsement clause make
    BSD-3-Clause), and fewer than NEIGHBOUR_WORDS of them are words its neighbours add to it. On the
    shipped texts of 597 permissive licences, each paragraph dropped or moved to the end (4,925
    texts), the fast path answered 78 otherwise than the full matching before these checks, 4 after
    (reworded clauses ScanCode's rules hold no neighbour for). bench/licenses.py --diverse measures the
    share settled."""
    from licensedcode.query import Query

    found = [m for d in detections for m in d.matches]
    if not found or any(m.len() < SUBSTANTIVE_TOKENS and not m.rule.is_license_text for m in found):
        return False
    if any(fragment in key for m in found for key in m.rule.license_keys() for fragment in GENERIC_KEYS):
        return False
    covered = set()
    for match in found:
        covered.update(match.qspan)
    # the matches carry the query exact matching tokenised; tokenise again only when they do not
    query = next((m.query for m in found if m.query is not None), None) or Query(query_string=text, idx=index)
    unmatched = [(i, tid) for i, tid in enumerate(query.tokens) if tid < index.len_legalese and i not in covered]
    if len(unmatched) > MAX_UNMATCHED_LEGALESE:
        return False
    if not unmatched:
        return True
    first, last = min(m.qspan.start for m in found), max(m.qspan.end for m in found)
    if any(first < i < last for i, _ in unmatched):
        return False
    neighbours = rule_neighbours(index)
    for match in found:
        added = set()  # unmatched words near the match that a neighbour adds to its rule
        for extra, reach in neighbours.of(match.rule.rid):
            hits = {tid for i, tid in unmatched
                    if match.qspan.start - reach <= i <= match.qspan.end + reach and tid in extra}
            if 2 * len(hits) >= len(extra):
                return False
            added |= hits
        if len(added) >= NEIGHBOUR_WORDS:
            return False
    return True


class Neighbours:
    """Per index: for a rule R, the rules of another licence expression whose legal words hold at least
    NEIGHBOUR_CONTAINMENT of R's and at most 2 * MAX_UNMATCHED_LEGALESE more: R's text with a clause
    added or changed (bsd-simplified beside bsd-new and bsd-original, mit beside x11). A text where
    exact matching found R, and whose unmatched legal words near R hold half of what a neighbour adds,
    may be the neighbour: approximate matching decides. Computed per rule when first matched, from
    ScanCode's own rules; a rule that adds more than twice the unmatched words allowed cannot have
    half of them there."""

    def __init__(self, index):
        from intbitset import intbitset

        legal = intbitset(range(index.len_legalese))
        self.rules = index.rules_by_rid
        self.legal = [None if tids is None else tids & legal for tids in index.sets_by_rid]
        # (size of a rule's legal word set, rid): the rules of a size band, found by bisection
        self.by_size = sorted((len(words), rid) for rid, words in enumerate(self.legal)
                              if words is not None and self.rules[rid].license_expression)
        self.found = {}

    def of(self, rid):
        """[(legal words the neighbour adds, tokens it is longer than R)] for rule ``rid``."""
        if rid not in self.found:
            self.found[rid] = self._neighbours(rid)
        return self.found[rid]

    def _neighbours(self, rid):
        rule, words = self.rules[rid], self.legal[rid]
        if not words:
            return []
        need = NEIGHBOUR_CONTAINMENT * len(words)
        low = bisect.bisect_left(self.by_size, (int(need), -1))
        high = bisect.bisect_right(self.by_size, (len(words) + 2 * MAX_UNMATCHED_LEGALESE, len(self.rules)))
        same, others = words.__class__(), []
        for _, other in self.by_size[low:high]:
            theirs = self.legal[other]
            if len(words & theirs) < need:
                continue
            if self.rules[other].license_expression == rule.license_expression:
                same |= theirs  # a word R's own variants hold sets no other licence apart
            else:
                others.append(other)
        found = []
        for other in others:
            extra = self.legal[other] - words - same
            if extra:
                found.append((extra, max(0, self.rules[other].length - rule.length)))
        return found


NEIGHBOUR_CONTAINMENT = 0.9  # share of a rule's legal words its neighbour's text holds
NEIGHBOUR_WORDS = 2  # unmatched words near a match that its neighbours add: a neighbour's clause may be there
_NEIGHBOURS = {}


def rule_neighbours(index):
    if id(index) not in _NEIGHBOURS:
        _NEIGHBOURS[id(index)] = Neighbours(index)
    return _NEIGHBOURS[id(index)]


# ScanCode's approximate matching starts with compute_candidates (89% of ScanCode's time on the diverse
# corpus's texts). Its first step scores the query's token set against each of ~30,000 rules in Python,
# keeps those passing its thresholds and ranks them; only the best 10 x top go on to its second step.
# CandidateFilter finds those best rules with bitset operations: a rule passes only when it shares
# max(1, min_high_matched_length) legalese tokens with the query (counted for every rule at once with
# bit-sliced bitsets), then min_matched_length tokens and its minimum containment; the passing rules are
# ranked by the same scores, computed as ScanCode computes them. The second step then scores just those
# best rules' token multisets (multiset_scores: compare_token_sets' arithmetic, the same ScoresVectors)
# and de-duplicates them with ScanCode's filter_dupes: the same candidates, in the same order (a rule
# left out could not have been among them). A plain request keeps ScanCode's compute_candidates.
SLICED_COUNTS = 6  # legalese-token counts kept exactly in bitsets; rules needing more are checked one by one


class CandidateFilter:
    """Per index: which rules hold each legalese token (bitsets of rule ids), and each rule's thresholds."""

    def __init__(self, index):
        from intbitset import intbitset

        self.len_legalese = legalese = index.len_legalese
        self.legal = intbitset(range(legalese))
        postings = {}
        rules = index.rules_by_rid
        self.need_high = [0] * len(rules)
        # per rule: its token set, min_matched_length, length and minimum containment (one look-up)
        self.scoring = [None] * len(rules)
        by_need = [[] for _ in range(SLICED_COUNTS + 1)]
        for rid in sorted(index.approx_matchable_rids):
            rule = rules[rid]
            need = max(1, rule.get_min_high_matched_length(True))
            self.need_high[rid] = need
            self.scoring[rid] = (index.sets_by_rid[rid], rule.get_min_matched_length(True), rule.get_length(True),
                                 rule._minimum_containment)
            by_need[min(need, SLICED_COUNTS)].append(rid)
            for tid in index.sets_by_rid[rid]:
                if tid < legalese:
                    postings.setdefault(tid, []).append(rid)
        self.postings = {tid: intbitset(rids) for tid, rids in postings.items()}
        self.by_need = [intbitset(rids) for rids in by_need]
        self.sets = index.sets_by_rid
        self.by_length = sorted((self.scoring[rid][2], rid) for rid in index.approx_matchable_rids)

    def candidates(self, query_run, index, top, high_resemblance, threshold):
        """match_set.compute_candidates(query_run, index, index.approx_matchable_rids, ...): its first
        step's best rules (``best``), then its second step over them, as it runs it."""
        from licensedcode import match_set

        qset, qmset = match_set.build_set_and_mset(query_run.matchable_tokens())
        high = qset & self.legal
        rules, msets = index.rules_by_rid, index.msets_by_rid
        query_tids, query_length = set(qmset), sum(qmset.values())
        found = []
        for *_, rid in self.best(qset, high, top, high_resemblance, threshold):
            rule = rules[rid]
            vectors = self.multiset_scores(qmset, query_tids, query_length, msets[rid], rule, threshold)
            if vectors and (not high_resemblance or (vectors[0].is_highly_resemblant
                                                     and vectors[1].is_highly_resemblant)):
                # the legalese tokens the first step found in common, as compute_candidates keeps them
                found.append((vectors, rid, rule, high & self.sets[rid]))
        return sorted(match_set.filter_dupes(found), reverse=True)[:top] if found else []

    def multiset_scores(self, qmset, query_tids, query_length, rule_mset, rule, threshold):
        """match_set.compare_token_sets' ScoresVectors for the query's and a rule's token multisets
        (its second step: filter_non_matching, not unique), None where it gives none; the same
        operations in the same order, over the tokens both hold (its intersector walks every token
        of the smaller multiset, in Python)."""
        from licensedcode.match_set import ScoresVector

        matched = high_matched = 0
        for tid in query_tids.intersection(rule_mset):
            count = min(qmset[tid], rule_mset[tid])
            matched += count
            if tid < self.len_legalese:
                high_matched += count
        if not high_matched or high_matched < rule.min_high_matched_length or matched < rule.min_matched_length:
            return None
        union = query_length + rule.length - matched
        resemblance = matched / union
        containment = matched / rule.length
        amplified = resemblance ** 2
        if rule._minimum_containment and containment < rule._minimum_containment:
            return None
        return (ScoresVector(is_highly_resemblant=round(resemblance, 1) >= threshold, containment=round(containment, 1),
                             resemblance=round(amplified, 1), matched_length=round(matched / 20, 1)),
                ScoresVector(is_highly_resemblant=resemblance >= threshold, containment=containment,
                             resemblance=amplified, matched_length=matched))

    def best(self, qset, high, top, high_resemblance, threshold):
        """compute_candidates' first step for the query token set ``qset`` (``high``: its legalese
        tokens): the rules it keeps, ranked, its best ``10 * top``, each as its sort key flattened
        (the rounded ScoresVector's fields, the full one's, the rule id)."""
        from intbitset import intbitset

        # at_least[k]: the rules sharing at least k of the query's legalese tokens
        at_least = [None] + [intbitset() for _ in range(SLICED_COUNTS)]
        for tid in high:
            rids = self.postings.get(tid)
            if rids is None:
                continue
            for k in range(SLICED_COUNTS, 1, -1):
                at_least[k] |= at_least[k - 1] & rids
            at_least[1] |= rids
        maybe = intbitset()
        for k in range(1, SLICED_COUNTS + 1):
            maybe |= at_least[k] & self.by_need[k]
        qlen = len(qset)
        if high_resemblance:  # resemblance <= min(|q|, |r|) / max(|q|, |r|): rules of other lengths cannot reach it
            slack = max(threshold - 0.01, 0.01)
            low = bisect.bisect_left(self.by_length, (slack * qlen, -1))
            high_end = bisect.bisect_right(self.by_length, (qlen / slack, len(self.sets)))
            maybe &= intbitset([rid for _, rid in self.by_length[low:high_end]])
        # the slices count common legalese tokens exactly up to SLICED_COUNTS: only the rules needing
        # more are counted one by one
        deep = maybe & self.by_need[SLICED_COUNTS]
        maybe -= intbitset([rid for rid in deep if len(high & self.sets[rid]) < self.need_high[rid]])
        scoring = self.scoring
        passing = []
        for rid in maybe:
            iset, need_length, iset_len, floor = scoring[rid]
            matched = len(qset & iset)
            if matched < need_length:
                continue
            # compare_token_sets' scores, in its operations and order: the same floats
            resemblance = matched / (qlen + iset_len - matched)
            containment = matched / iset_len
            if floor and containment < floor:
                continue
            passing.append((containment, resemblance, matched, rid))
        if not high_resemblance:  # (there the resemblance filter below decides which rules count)
            passing = contenders(passing, top * 10, threshold)
        ranked = []
        for containment, resemblance, matched, rid in passing:
            amplified = resemblance ** 2
            rounded_high = round(resemblance, 1) >= threshold
            full_high = resemblance >= threshold
            if high_resemblance and not (rounded_high and full_high):
                continue
            # (ScoresVector rounded, ScoresVector full, rid): compute_candidates' sort key, flattened
            ranked.append((rounded_high, round(containment, 1), round(amplified, 1), round(matched / 20, 1),
                           full_high, containment, amplified, matched, rid))
        return heapq.nlargest(top * 10, ranked)


ROUNDING = 0.06  # more than round(x, 1) moves a value


def contenders(passing, keep, threshold):
    """Of the rules passing the first step, as (containment, resemblance, matched, rule id), those
    that may rank among its best ``keep``. Its sort key starts with whether the resemblance rounds
    to ``threshold`` or more, then the containment rounded: when ``keep`` rules have a containment of
    c or more, a rule whose containment is under round(c, 1) by more than rounding moves it ranks
    below all of them, unless its resemblance may round to the threshold. Only the others need
    their key computed (rounding is most of its cost)."""
    if len(passing) <= keep:
        return passing
    floor = round(heapq.nlargest(keep, [containment for containment, *_ in passing])[-1], 1) - ROUNDING
    return [rule for rule in passing if rule[0] >= floor or rule[1] >= threshold - ROUNDING]


_FILTERS = {}
_ORIGINAL_CANDIDATES = []
_PLAIN = [False]  # the request in progress is a plain one: ScanCode's compute_candidates untouched


def candidate_filter(index):
    if id(index) not in _FILTERS:
        _FILTERS[id(index)] = CandidateFilter(index)
    return _FILTERS[id(index)]


def use_candidate_filter(index):
    """Route ScanCode's compute_candidates through the filter (see CandidateFilter) for this index."""
    from licensedcode import match_set

    candidate_filter(index)
    if _ORIGINAL_CANDIDATES:
        return
    original = match_set.compute_candidates
    _ORIGINAL_CANDIDATES.append(original)

    def compute_candidates(query_run, idx, matchable_rids, top=50, high_resemblance=False,
                           high_resemblance_threshold=0.8, _use_bigrams=False):
        found = _FILTERS.get(id(idx))
        if (not _PLAIN[0] and found is not None and not _use_bigrams
                and matchable_rids is idx.approx_matchable_rids):
            return found.candidates(query_run, idx, top, high_resemblance, high_resemblance_threshold)
        return original(query_run, idx, matchable_rids, top=top, high_resemblance=high_resemblance,
                        high_resemblance_threshold=high_resemblance_threshold, _use_bigrams=_use_bigrams)

    match_set.compute_candidates = compute_candidates


def rule_kind(rule):
    """What a rule matches: a license's full text, a notice, a reference, a tag, an intro or a clue."""
    for kind in ("text", "notice", "reference", "tag", "intro", "clue"):
        if getattr(rule, f"is_license_{kind}", False):
            return kind
    return "other"


def is_substantive(detection):
    """A detection holding a license text, or a match long enough to be more than a mention."""
    return any(m.rule.is_license_text or m.len() >= SUBSTANTIVE_TOKENS for m in detection.matches)


def serve(stdin, stdout, engine=None, hello=None):
    """Answer requests from ``stdin`` on ``stdout`` until a quit or the end of ``stdin``. ``engine``:
    an index already loaded (a server's child), else one is loaded here."""
    if engine is None:
        engine = load_engine()
        settle_heap()
    index, db, licensing, seconds = engine
    send(stdout, hello or {"ready": True, "version": scancode_version(), "index_seconds": round(seconds, 3)})
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "quit":
                break
            if op == "settles":
                send(stdout, {"ok": True, "settled": [settles(index, text) for text in request["texts"]]})
                continue
            if op != "detect":
                raise ValueError(f"unknown op {op!r}")
            plain = bool(request.get("plain"))
            results = [detect_one(index, db, licensing, text, plain=plain) for text in request["texts"]]
            send(stdout, {"ok": True, "results": results})
        except Exception as exc:  # noqa: BLE001 - reported to the client, which raises
            send(stdout, {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                          "traceback": traceback.format_exc()})


def settle_heap():
    """The loaded index moves to the collector's permanent generation: collections no longer walk its
    millions of objects (a collection first would cost half a second and free next to nothing), and a
    forked child does not write to their pages."""
    gc.freeze()


def warm_up(engine):
    """One detection before forking (exact and approximate matching), so that what ScanCode imports
    and builds on first use is done once, in the shared pages, not in every child."""
    index, db, licensing, _ = engine
    detect_one(index, db, licensing, "Licensed under the Apache License, Version 2.0, or the MIT license.")
    detect_one(index, db, licensing, "Permission is hereby granted, free of charge, to any person obtaining a "
               "copy of this software, to deal in it without restriction, subject to the conditions below.")


IDLE_S = 120.0  # a server with no child for this long exits
POLL_S = 0.5  # how often the server checks its children and its socket file


def serve_forks(path, idle_s=IDLE_S, ready_out=None):
    """The server (see the module docstring): listen on ``path``, fork a child per connection."""
    started = time.perf_counter()
    engine = load_engine()
    warm_up(engine)
    settle_heap()
    seconds = time.perf_counter() - started
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staged = f"{path}.{os.getpid()}"
    try:
        os.unlink(staged)
    except FileNotFoundError:
        pass
    bind_long(listener, staged)
    listener.listen(64)
    os.replace(staged, path)  # atomically: a stale socket file left by a killed server is replaced
    own = os.stat(path)
    server = {"server_pid": os.getpid(), "version": scancode_version(), "server_index_seconds": round(seconds, 3)}
    _stop = []
    signal.signal(signal.SIGTERM, lambda *_: _stop.append(True))
    if ready_out is not None:
        send(ready_out, {"ready": True, **server})
        ready_out.close()
    children = set()
    last_busy = time.monotonic()
    try:
        while not _stop:
            _reap(children)
            now = time.monotonic()
            if children:
                last_busy = now
            if not _still_ours(path, own):
                break  # the socket file was removed or replaced: another server, or a clean-up
            if not children and now - last_busy >= idle_s:
                break
            try:
                readable, _, _ = select.select([listener], [], [], POLL_S)
            except InterruptedError:
                continue
            if readable:
                _accept(listener, engine, server, children)
    finally:
        if _still_ours(path, own):
            os.unlink(path)  # no new connection from here on
        # a client that connected before the unlink is still in the backlog: serve it too
        listener.setblocking(False)
        while _accept(listener, engine, server, children):
            pass
        listener.close()


MAX_SOCKET_PATH = 100  # a socket address holds 108 bytes


def bind_long(listener, path):
    """Bind ``path``, through its folder's descriptor when it is too long for a socket address
    (/proc/self/fd/N/name names the same file; the client connects the same way)."""
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        listener.bind(path)
        return
    folder = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        listener.bind(f"/proc/self/fd/{folder}/{os.path.basename(path)}")
    finally:
        os.close(folder)


def _accept(listener, engine, server, children):
    try:
        connection, _ = listener.accept()
    except (BlockingIOError, InterruptedError):
        return False
    pid = os.fork()
    if pid:
        connection.close()
        children.add(pid)
        return True
    # the child: serve this connection, then end without the parent's exit handlers (its scratch folder)
    code = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        listener.close()
        follow_client(connection)
        connection.setblocking(True)
        reader = connection.makefile("r", encoding="utf-8", newline="\n")
        writer = connection.makefile("w", encoding="utf-8", newline="\n")
        hello = {"ready": True, "shared": True, "pid": os.getpid(), "index_seconds": 0.0, **server}
        profiled(serve, reader, writer, engine, hello)
        writer.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client went away: nothing to answer
    except BaseException:  # noqa: BLE001 - a child never returns into the server's loop
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def follow_client(connection):
    """The child runs on the cores its client may use (the server inherited the CPU affinity of
    whichever process started it: a run pinned to one core must not pin every later client's
    ScanCode work there)."""
    try:
        pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                              struct.calcsize("3i")))
        os.sched_setaffinity(0, os.sched_getaffinity(pid))
    except (AttributeError, OSError, struct.error):
        pass  # no peer credentials or affinity on this platform: the server's cores


def _reap(children):
    for pid in list(children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            children.discard(pid)


def _still_ours(path, own):
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISSOCK(now.st_mode) and (now.st_dev, now.st_ino) == (own.st_dev, own.st_ino)


def send(stdout, message):
    stdout.write(json.dumps(message, sort_keys=True) + "\n")
    stdout.flush()


def main(argv):
    if "--build-index" in argv:
        *_, seconds = load_engine()
        print(json.dumps({"version": scancode_version(), "index_seconds": round(seconds, 3)}))
        return 0
    # ScanCode may print warnings; only protocol lines may reach the real stdout.
    protocol_out = sys.stdout
    sys.stdout = sys.stderr
    if "--serve" in argv:
        path = argv[argv.index("--serve") + 1]
        idle_s = float(argv[argv.index("--idle") + 1]) if "--idle" in argv else IDLE_S
        try:
            serve_forks(path, idle_s, protocol_out)
        except Exception as exc:  # noqa: BLE001 - told to the client that started the server
            if not protocol_out.closed:
                send(protocol_out, {"ready": False, "error": f"{type(exc).__name__}: {exc}"})
            raise
    else:
        profiled(serve, sys.stdin, protocol_out)
    end()


def end():
    """Exit without tearing the index down object by object (seconds of a client's wait), the scratch
    folder removed."""
    for stream in (sys.__stdout__, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    shutil.rmtree(_SCRATCH, ignore_errors=True)
    os._exit(0)


def profiled(function, *args):
    """``function(*args)``, under cProfile when QUARRY_SCANCODE_PROFILE names a folder."""
    folder = os.environ.get("QUARRY_SCANCODE_PROFILE")
    if not folder:
        return function(*args)
    import cProfile

    profile = cProfile.Profile()
    try:
        return profile.runcall(function, *args)
    finally:
        os.makedirs(folder, exist_ok=True)
        profile.dump_stats(os.path.join(folder, f"scancode-{os.getpid()}.prof"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
