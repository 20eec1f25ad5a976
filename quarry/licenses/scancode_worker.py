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
    request         {"op": "quit"}

`python scancode_worker.py --serve SOCKET [--idle SECONDS]` is the same worker as a server: it loads
the index once, listens on the Unix socket SOCKET and forks a child per connection, which speaks the
protocol above over the connection (its start-up reply adds "shared": true, "pid", "server_pid" and
the server's "server_index_seconds"; "index_seconds" is 0: the child loaded nothing). The children
share the index pages copy-on-write, so one index serves every worker of the machine. The server
writes its own start-up reply ({"ready": true, "server_pid", ...}, or {"ready": false, "error"}) on
stdout once it listens, then closes stdout. It exits when no child has been running for SECONDS
(default 120), when SOCKET is removed or replaced, or on SIGTERM; a child exits when its connection
closes. quarry.licenses.engine starts and finds the server.

`python scancode_worker.py --build-index` builds (or loads) ScanCode's index cache and exits:
the one-time set-up step, so the first detection does not pay for it.

QUARRY_SCANCODE_PROFILE=<folder>: the worker runs under cProfile and writes
<folder>/scancode-<pid>.prof as it ends (pstats reads it).
"""

import atexit
import gc
import json
import os
import select
import shutil
import signal
import socket
import stat
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
    start = time.perf_counter()
    from licensedcode.cache import get_index, get_licenses_db, get_licensing

    index = get_index()
    db = get_licenses_db()
    licensing = get_licensing()
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
    from packagedcode.utils import combine_expressions

    expressions = []
    matches = []
    weighted = 0.0
    length = 0
    deadline = time.time() + deadline_s
    detections = None if plain else _detections(index, text, deadline, approximate=False)
    if detections is None or not settled(index, text, detections):
        detections = _detections(index, text, deadline, approximate=True)
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
    combined = combine_expressions(expressions=expressions, relation="AND", unique=True, licensing=licensing)
    spdx = build_spdx_license_expression(combined, licensing=licensing)
    keys = sorted(set(licensing.license_keys(combined, unique=True)))
    return {
        "expression": str(combined),
        "spdx": str(spdx),
        "score": round(weighted / length, 2) if length else 0.0,
        "keys": {key: describe_key(db, key) for key in keys},
        "matches": matches,
    }


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
    more), none names a generic key, and they leave at most MAX_UNMATCHED_LEGALESE of the text's
    legal words unmatched. Measured on the texts the licences stage asks about on 24 MB of the
    machine's C, Perl and shell code (bench/licenses.py --diverse): tuned on 300 of them (70%
    settled, none answered differently from the full matching), checked on 300 others (2 differ:
    an extra GPL-1.0-or-later, now a generic key) and on the 404 left."""
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
    tokens = query.tokens
    unmatched = sum(1 for i, tid in enumerate(tokens) if tid < index.len_legalese and i not in covered)
    return unmatched <= MAX_UNMATCHED_LEGALESE


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
    millions of objects, and a forked child does not write to their pages."""
    gc.collect()
    gc.freeze()


def warm_up(engine):
    """One detection before forking, so that what ScanCode builds lazily on first use is built once,
    in the shared pages, not in every child."""
    index, db, licensing, _ = engine
    for plain in (False, True):
        detect_one(index, db, licensing, "SPDX-License-Identifier: MIT\nLicensed under the Apache License, "
                   "Version 2.0; you may not use this file except in compliance with the License.", plain=plain)


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
    listener.bind(staged)
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
