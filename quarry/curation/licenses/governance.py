"""Governance by nearest ancestor: which license governs each file of a repository.

Every license-bearing file governs its own subtree, at any depth: license files, package
manifests and notices govern their folder; a ``*.dist-info`` / ``*.egg-info`` folder speaks for
the distribution installed beside it (where several share a folder, only for the files it owns:
quarry.curation.licenses.ownership); REUSE ``.license`` sidecars govern the file they annotate;
Debian copyright files, ``.reuse/dep5`` and ``REUSE.toml`` govern the paths they name. A file's
own SPDX line or license header wins over all of them (but a REUSE.toml ``override``).

Three steps, each a pure function, so the survey can run per shard and the decision once:

    survey = OriginSurvey(); survey.add(path, text, statement)      # every file of an origin
    texts = primary_texts(survey) | fallback_texts(survey, found)   # what ScanCode must read
    governance = origin_governance(survey, findings)                # scopes, JSON-ready
    entry = govern(path, own_finding, statement, governance)        # meta.license of one file
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace

from license_expression import AND, OR

from quarry.curation.licenses.declarations import (AGGREGATE, OVERRIDE, Rule, bundled_components, declaration_base,
                                                  parse_declaration)
from quarry.curation.licenses.expressions import canonical, without
from quarry.curation.licenses.findings import LicenseFinding, combine, license_meta
from quarry.curation.licenses.ownership import INFO_DIR, Owned, is_listing, listing_text, ownership, owns, shared_folders
from quarry.curation.licenses.notices import STRONG, WEAK, has_choice, is_documentation, license_passages, offers_choice, \
    rights_reserved, split_docs_clause, without_self_notices
from quarry.curation.licenses.policy import RANK, leaf_keys, parse
from quarry.curation.licenses.sources import (LICENSE_TIER, MANIFEST_TIER, README_TIER, as_spdx_statement, declared_licenses,
                                     repo_file_tier, spdx_identifier, vendored_library)
from quarry.records import JsonDict

REUSE_TIER = README_TIER + 1  # LICENSES/<id>.txt: the texts a REUSE repository ships, by file name
VENDORED_TIER = REUSE_TIER + 1  # a vendored library's own file statements, when it ships no license file
_INFO_DIR = INFO_DIR
_REUSE_TEXT = re.compile(r"^(.*/)?LICENSES/([A-Za-z0-9.+-]+)\.txt$")
# Words of choice flip ScanCode's AND into an OR in a short notice only: in a long text (a preface
# and the full licenses) a stray match elsewhere would become a permissive option.
MAX_CHOICE_CHARS = 4000

PROPRIETARY = {"strong": "LicenseRef-scancode-proprietary-license", "weak": "LicenseRef-scancode-all-rights-reserved"}


def proprietary_finding(strength: str) -> LicenseFinding:
    spdx = PROPRIETARY[strength]
    return LicenseFinding(spdx=spdx, score=100.0, categories={spdx: "proprietary"})


# ---------------------------------------------------------------------------------------------
# Survey: what an origin's files say (mergeable across shards)


@dataclass
class OriginSurvey:
    files: dict[str, str] = field(default_factory=dict)  # license-bearing path -> text for ScanCode
    folders: set[str] = field(default_factory=set)  # every folder holding a file
    reserved: dict[str, str] = field(default_factory=dict)  # file statement marking rights -> first path
    granted: str | None = None  # the first file of the origin's own (not vendored) whose statement grants rights
    # vendored library folder -> its files' own statements -> first path: what the library says of
    # itself when it ships no license file
    vendored: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, path: str, text: str, statement: str | None = None) -> None:
        path = path.strip("/")
        self.folders.add(posixpath.dirname(path))
        if (kept := governor_text(path, text)) is not None:
            self.files[path] = kept
        if not statement:
            return
        library = vendored_library(path)
        if rights_reserved(statement):
            _first(self.reserved, statement, path)
        elif library is None:
            self._granted(path)
        if library:
            _first(self.vendored.setdefault(library, {}), statement, path)

    def _granted(self, path: str) -> None:
        if self.granted is None or path < self.granted:
            self.granted = path

    def merge(self, other: OriginSurvey) -> None:
        self.files.update(other.files)
        self.folders |= other.folders
        for statement, path in other.reserved.items():
            _first(self.reserved, statement, path)
        if other.granted:
            self._granted(other.granted)
        for library, statements in other.vendored.items():
            for statement, path in statements.items():
                _first(self.vendored.setdefault(library, {}), statement, path)

    def to_dict(self) -> JsonDict:
        return {"files": dict(sorted(self.files.items())), "folders": sorted(self.folders),
                "reserved": dict(sorted(self.reserved.items())), "granted": self.granted,
                "vendored": {k: dict(sorted(v.items())) for k, v in sorted(self.vendored.items())}}

    @classmethod
    def from_dict(cls, data: JsonDict) -> OriginSurvey:
        return cls(dict(data["files"]), set(data["folders"]), dict(data["reserved"]), data.get("granted"),
                   {k: dict(v) for k, v in data.get("vendored", {}).items()})


def _first(paths: dict[str, str], statement: str, path: str) -> None:
    if statement not in paths or path < paths[statement]:
        paths[statement] = path


def is_sidecar(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".license") and len(name) > len(".license")


def governor_text(path: str, text: str) -> str | None:
    """The text a license-bearing file contributes (a manifest's declaration, a RECORD's paths),
    or None when the file bears no license."""
    if is_listing(path):
        return listing_text(path, text)
    if declaration_base(path) is not None or is_sidecar(path) or _REUSE_TEXT.match(path):
        return text
    tier = repo_file_tier(path)
    if tier is None:
        return None
    return declared_licenses(path, text) if tier == MANIFEST_TIER else text


# ---------------------------------------------------------------------------------------------
# Units: the license-bearing files that decide together, and what they govern


@dataclass
class Member:
    path: str
    tier: int
    text: str
    docs: str | None = None  # a clause for documentation only, read apart


@dataclass
class Unit:
    base: str  # the folder governed ("" is the repository root)
    members: list[Member] = field(default_factory=list)
    owned: Owned | None = None  # only these files (a distribution sharing its folder)


@dataclass
class GovernancePlan:
    units: dict[str, Unit]
    sidecars: dict[str, tuple[str, str]]  # annotated path -> (sidecar path, statement)
    declarations: list[tuple[str, str, list[Rule]]]  # (base, file, rules)


def _statement(text: str) -> str:
    expression = spdx_identifier(text, 200)
    return f"SPDX-License-Identifier: {expression}" if expression else text


def plan(survey: OriginSurvey) -> GovernancePlan:
    units: dict[str, Unit] = {}
    sidecars: dict[str, tuple[str, str]] = {}
    declarations: list[tuple[str, str, list[Rule]]] = []
    listings: dict[str, str] = {}

    def member(key: str, base: str, item: Member) -> None:
        units.setdefault(key, Unit(base)).members.append(item)

    for path, text in sorted(survey.files.items()):
        folder, name = posixpath.split(path)
        info = _info_folder(path)
        if is_listing(path):
            listings[path] = text
            continue
        if (base := declaration_base(path)) is not None:
            rules = parse_declaration(path, text)
            if rules is not None:
                declarations.append((base, path, rules))
                continue
            member(base, base, Member(path, LICENSE_TIER, *split_docs_clause(text)))
            continue
        if is_sidecar(path):
            sidecars[path[:-len(".license")]] = (path, _statement(text))
            continue
        if match := _REUSE_TEXT.match(path):
            base = (match.group(1) or "").rstrip("/")
            base = posixpath.dirname(base) if base.endswith("LICENSES") else base
            member(base, base, Member(path, REUSE_TIER, as_spdx_statement(match.group(2))))
            continue
        tier = repo_file_tier(path)
        if tier is None:
            continue
        if tier == README_TIER and not (text := without_self_notices(text)):
            continue  # a README whose only licence is its own says nothing of the project's
        key, base = _info_scope(path, info, survey.folders) if info else (folder, folder)
        if key is None:
            continue  # the license of a folder that was not installed: it governs nothing here
        if tier == LICENSE_TIER:
            text, bundled = bundled_components(text)
            if bundled:
                declarations.append((base, path, bundled))
        main, docs = split_docs_clause(text) if tier != MANIFEST_TIER else (text, None)
        member(key, base, Member(path, tier, main, docs))
    for library, statements in survey.vendored.items():  # last resort: its files' own statements
        ordered = sorted(statements.items(), key=lambda item: item[1])
        units.setdefault(library, Unit(library)).members.extend(Member(p, VENDORED_TIER, t) for t, p in ordered)
    shared = {base: ownership(infos, listings, survey.folders)
              for base, infos in shared_folders(survey.folders).items()}
    for key, unit in list(units.items()):
        if not _INFO_DIR.match(key):
            continue
        if unit.base in shared:  # distributions sharing a folder govern only their own files
            unit.owned = shared[unit.base][key]
        else:  # one distribution: its metadata and the license files beside it decide together
            units.setdefault(unit.base, Unit(unit.base)).members.extend(units.pop(key).members)
    return GovernancePlan(units, sidecars, declarations)


def _info_folder(path: str) -> str | None:
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        if _INFO_DIR.match("/".join(parts[:i])):
            return "/".join(parts[:i])
    return None


def _info_scope(path: str, info: str, folders: set[str]) -> tuple[str | None, str]:
    """(unit key, governed folder) of a license file inside a distribution's metadata folder. PEP 639
    keeps license files at their source path under ``licenses/``: a nested one governs the installed
    folder its path ends with (``licenses/src/pkg/vendor/x/LICENSE`` -> ``pkg/vendor/x``)."""
    base = posixpath.dirname(info)
    inner = path[len(info) + 1:].split("/")
    if inner[0] != "licenses" or len(inner) <= 2:
        return info, base
    source = inner[1:-1]
    for start in range(len(source)):
        candidate = posixpath.join(base, *source[start:])
        if candidate in folders or any(f.startswith(candidate + "/") for f in folders):
            return candidate, candidate
    return None, base


# ---------------------------------------------------------------------------------------------
# Texts for ScanCode


def primary_texts(survey: OriginSurvey) -> set[str]:
    """License files, manifests, declarations, sidecars and REUSE texts: read for every origin."""
    p = plan(survey)
    texts = {s for _, s in p.sidecars.values()} | set(survey.reserved)
    texts |= {rule.statement for _, _, rules in p.declarations for rule in rules}
    for unit in p.units.values():
        for m in unit.members:
            if m.tier != README_TIER:
                texts.add(m.text)
                if m.docs:
                    texts.add(m.docs)
            if m.tier in (LICENSE_TIER, README_TIER):  # a choice by license names: short passages
                texts |= {t for t in _choice_passages(m) if has_choice(t)}
    return texts


def fallback_texts(survey: OriginSurvey, findings: dict[str, LicenseFinding | None]) -> set[str]:
    """NOTICE and README texts (long prose, the costliest) of the units the others left unlicensed."""
    texts: set[str] = set()
    for unit in plan(survey).units.values():
        licensed = [f for m in unit.members if m.tier not in (README_TIER, VENDORED_TIER)
                    and _real(f := findings.get(m.text))]
        if not licensed or _bare_versions(licensed):
            texts |= {t for m in unit.members if m.tier == README_TIER for t in (m.text, m.docs) if t}
    return texts


def _bare_versions(findings: list[LicenseFinding]) -> set[str]:
    """The "-only" ids known only from a license's own text: the text of version 2 of the GPL does
    not say whether later versions may be used; the project's README or NOTICE does."""
    return {k for f in findings for k in f.text_only if k.endswith("-only")}


def _real(finding: LicenseFinding | None) -> bool:
    return finding is not None and not finding.is_reference_only


# ---------------------------------------------------------------------------------------------
# Deciding a unit


@dataclass(frozen=True)
class Choice:
    path: str
    finding: LicenseFinding
    also: tuple[str, LicenseFinding] | None = None  # the disagreeing declaration or text, recorded


def _as_choice(finding: LicenseFinding, text: str) -> LicenseFinding:
    """A notice that offers a choice and names several licenses: ScanCode reads AND, the text says OR."""
    node = parse(finding.spdx)
    if isinstance(node, AND) and len(text) <= MAX_CHOICE_CHARS and has_choice(text):
        return replace(finding, spdx=canonical(str(OR(*node.args))))
    return finding


def _or(findings: list[LicenseFinding]) -> LicenseFinding:
    return combine(findings, "OR")


def _supplements(findings: list[tuple[str, LicenseFinding]]) -> list[tuple[str, LicenseFinding]]:
    """LGPL-3.0 is GPL-3.0 plus permissions: a project ships both texts for one license."""
    keys = {k for _, f in findings for k in leaf_keys(f.spdx)}
    lesser = {k for k in keys if k.startswith("LGPL-3.0")}
    if not lesser:
        return findings
    return [(p, f) for p, f in findings if not set(leaf_keys(f.spdx)) <= {k for k in keys if k.startswith("GPL-3.0")}]


def _family(key: str) -> str:
    return re.sub(r"(-only|-or-later|\+)$", "", key)


def _choice_passages(member: Member) -> list[str]:
    """Where a member may offer a choice: a short notice whole, else its license passages."""
    if member.tier != README_TIER and len(member.text) <= MAX_CHOICE_CHARS:
        return [member.text]
    return [p for p in license_passages(member.text) if len(p) <= MAX_CHOICE_CHARS]


def _kind(key: str) -> str:
    """A license's name without its version ("GPL-3.0-only" -> "GPL"): what prose names."""
    return re.sub(r"-\d.*$|-(only|or-later)$|\+$", "", key).upper()


def _named_choice(passage: LicenseFinding | None, siblings: dict[str, LicenseFinding]) -> list[str]:
    """The sibling license files whose licenses a passage with words of choice names (by name, not
    file: "either the MIT license or the GPL"): at least two, together naming every license named."""
    if passage is None or passage.is_reference_only:
        return []
    named = {_kind(k) for k in leaf_keys(passage.spdx)}
    picked = sorted(n for n, f in siblings.items() if {_kind(k) for k in leaf_keys(f.spdx)} <= named)
    covered = {_kind(k) for n in picked for k in leaf_keys(siblings[n].spdx)}
    return picked if len(picked) >= 2 and covered == named else []


def _rank(finding: LicenseFinding) -> int:
    return RANK[finding.category]


def decide(unit: Unit, findings: dict[str, LicenseFinding | None]) -> Choice | None:
    """The governing license of a unit from its members' findings (keyed by text). A member whose
    finding is only stray mentions gives way to members that state a license; its ids are kept as
    evidence (``set_aside``)."""
    read = {m.text: f for m in unit.members if (f := findings.get(m.text)) is not None}
    stated = [f for f in read.values() if not f.stray and not f.is_reference_only]
    aside = sorted({k for f in read.values() if f.stray for k in leaf_keys(f.spdx)}) if stated else []
    if aside:
        findings = {**findings, **{t: None for t, f in read.items() if f.stray}}
    choice = _decide(unit, findings)
    if choice is None or not aside:
        return choice
    kept = set(leaf_keys(choice.finding.spdx))
    extra = tuple(sorted(set(choice.finding.set_aside) | (set(aside) - kept)))
    return replace(choice, finding=replace(choice.finding, set_aside=extra)) if extra else choice


def _decide(unit: Unit, findings: dict[str, LicenseFinding | None]) -> Choice | None:
    found = [(m, f) for m in unit.members if (f := findings.get(m.text)) is not None]
    real = [(m, f) for m, f in found if not f.is_reference_only]
    if not real:  # "All rights reserved" and nothing granted (a COPYRIGHT file beside a LICENSE is not that)
        real = [(m, proprietary_finding(strength)) for m in unit.members
                if findings.get(m.text) is None and m.tier != MANIFEST_TIER and (strength := rights_reserved(m.text))]
        found += real
    if not real:
        return Choice(found[0][0].path, found[0][1]) if found else None
    for tier_group in ((LICENSE_TIER, MANIFEST_TIER), (README_TIER,), (REUSE_TIER,), (VENDORED_TIER,)):
        chosen = [(m, _as_choice(f, m.text)) for m, f in real if m.tier in tier_group]
        if chosen:
            break
    names = {posixpath.basename(m.path): (m, f) for m, f in chosen if m.tier == LICENSE_TIER}
    options: list[tuple[str, LicenseFinding]] = []
    pointers: set[str] = set()  # notices whose own reading the files they point to supersede
    for m in unit.members:
        if m.tier not in (LICENSE_TIER, README_TIER):
            continue
        siblings = {n: f for n, (_, f) in names.items() if n != posixpath.basename(m.path)}
        for passage in _choice_passages(m):
            if picked := offers_choice(passage, sorted(siblings)) or _named_choice(findings.get(passage), siblings):
                options.append((m.path, _or([siblings[n] for n in picked])))
                pointers.add(m.path)
                break
    options += [(m.path, f) for m, f in chosen if isinstance(parse(f.spdx), OR) and m.path not in pointers]
    every = {k for m, f in chosen if m.path not in pointers for k in leaf_keys(f.spdx)}
    for path, f in options:  # a choice naming every license of its folder states how they combine
        if {_family(k) for k in leaf_keys(f.spdx)} >= {_family(k) for k in every}:
            return Choice(path, f)
    texts = _supplements([(m.path, f) for m, f in chosen if m.tier != MANIFEST_TIER])
    declared = [(m.path, f) for m, f in chosen if m.tier == MANIFEST_TIER]
    if not declared and (bare := _bare_versions([f for m, f in chosen if m.tier == LICENSE_TIER])):
        families = {_family(k) for k in bare}  # a notice saying "or any later version" of those texts
        declared = [(m.path, f) for m, f in real if m.tier == README_TIER and not f.stray
                    and {_family(k) for k in leaf_keys(f.spdx)} == families
                    and any(k.endswith("-or-later") for k in leaf_keys(f.spdx))][:1]
    text = (texts[0][0], combine([f for _, f in texts])) if texts else None
    stated = (declared[0][0], combine([f for _, f in declared])) if declared else None
    if text is None or stated is None:
        return Choice(*(text or stated))
    text_keys, stated_keys = set(leaf_keys(text[1].spdx)), set(leaf_keys(stated[1].spdx))
    if text_keys == stated_keys:  # the declaration states how the texts combine, if it says more
        return Choice(*(stated if " OR " in stated[1].spdx else text))
    if {_family(k) for k in text_keys} == {_family(k) for k in stated_keys} and _rank(text[1]) == _rank(stated[1]):
        later = stated if any(k.endswith(("-or-later", "+")) for k in stated_keys) else text
        return Choice(*later)  # "-or-later" declared beside the license's plain text survives
    # Declared metadata and shipped text disagree: the more restrictive governs, the other is kept;
    # a text or declaration ScanCode cannot name (unknown) gives way to one it can.
    if (text[1].category == "unknown") != (stated[1].category == "unknown"):
        known, unknown = (stated, text) if text[1].category == "unknown" else (text, stated)
        return Choice(known[0], known[1], also=unknown)
    if _rank(stated[1]) == _rank(text[1]) and text_keys < stated_keys:
        return Choice(stated[0], stated[1], also=text)  # the declaration names the text's licence and more
    first, second = (stated, text) if _rank(stated[1]) > _rank(text[1]) else (text, stated)
    return Choice(first[0], first[1], also=second)


def _docs_choice(unit: Unit, findings: dict[str, LicenseFinding | None]) -> Choice | None:
    docs = [(m.path, f) for m in unit.members if m.docs and _real(f := findings.get(m.docs))]
    return Choice(docs[0][0], combine([f for _, f in docs])) if docs else None


# ---------------------------------------------------------------------------------------------
# The origin's governance (JSON) and one file's license


def _entry(choice: Choice, level: str) -> JsonDict:
    entry = license_meta(choice.finding, choice.path, level)
    if choice.also:
        path, finding = choice.also
        entry["evidence"]["also"] = {"spdx": finding.spdx, "category": finding.category, "file": path}
    entry["categories"] = dict(sorted(choice.finding.categories.items()))
    return entry


def origin_governance(survey: OriginSurvey, findings: dict[str, LicenseFinding | None]) -> JsonDict:
    """Every scope of an origin: directories (nearest first), sidecars, declarations, the file
    that reserves rights when nothing grants any; the root's entry also at the top level."""
    p = plan(survey)
    scopes = []
    for key in sorted(p.units, key=lambda k: (-_depth(p.units[k].base), k)):
        unit = p.units[key]
        choice = decide(unit, findings)
        if choice is None:
            continue
        scope = {"base": unit.base, **_entry(choice, "repository" if unit.base == "" else "directory")}
        if unit.owned is not None:
            scope["owned"] = unit.owned.to_dict()
        if docs := _docs_choice(unit, findings):
            scope["docs"] = _entry(docs, "documentation")
        scopes.append(scope)
    sidecars = {}
    for target, (path, statement) in sorted(p.sidecars.items()):
        if (f := findings.get(statement)) is not None:
            sidecars[target] = _entry(Choice(path, f), "sidecar")
    declarations = []
    for base, path, rules in sorted(p.declarations, key=lambda d: (-_depth(d[0]), d[1])):
        decided = [{"patterns": list(r.patterns), "precedence": r.precedence, "reuse_glob": r.reuse_glob,
                    **_entry(Choice(path, f), "declaration")}
                   for r in rules if (f := findings.get(r.statement)) is not None]
        if decided:
            declarations.append({"base": base, "file": path, "rules": decided})
    # "All rights reserved" alone in some files reserves the unmarked ones only where no file of the
    # origin's own grants anything (libtirpc: one header of Sun's notice without its BSD terms, thirty with)
    reserved = sorted((path, statement) for statement, path in survey.reserved.items()
                      if (not _real(found := findings.get(statement)) or found.category in ("unknown", "proprietary"))
                      and not (survey.granted and rights_reserved(statement) == WEAK))
    governance: JsonDict = {"scopes": scopes, "sidecars": sidecars, "declarations": declarations}
    if reserved:  # files reserve rights and nothing grants any: the unmarked files are no freer
        path, statement = reserved[0]
        found = findings.get(statement)
        finding = found if found is not None and found.category == "proprietary" else proprietary_finding(WEAK)
        governance["reserved"] = _entry(Choice(path, finding), "repository")
    root = next((s for s in scopes if s["base"] == "" and "owned" not in s), None)
    if root is None and not scopes and not sidecars and not declarations and not reserved:
        return {**license_meta(None, None, "repository"), "categories": {}, **governance}
    top = root or {**license_meta(None, None, "repository"), "categories": {}}
    return {k: top[k] for k in ("spdx", "category", "evidence", "categories")} | governance


def _depth(base: str) -> int:
    return base.count("/") + 1 if base else 0


def _under(path: str, base: str) -> bool:
    return base == "" or path.startswith(base + "/")


def _declared(path: str, governance: JsonDict, precedence: set[str]) -> JsonDict | None:
    for declaration in governance.get("declarations", []):
        base = declaration["base"]
        if not _under(path, base):
            continue
        rel = path[len(base) + 1:] if base else path
        rules = [Rule(tuple(r["patterns"]), "", r["precedence"], r["reuse_glob"]) for r in declaration["rules"]]
        hits = [r for rule, r in zip(rules, declaration["rules"]) if rule.matches(rel)]
        if hits and hits[-1]["precedence"] in precedence:
            return hits[-1]
        if hits:
            return None
    return None


def _strip(entry: JsonDict) -> JsonDict:
    return {k: entry[k] for k in ("spdx", "category", "evidence", "categories")}


# A bare warranty disclaimer ("provided as is, without warranty"): no grant and no restriction. In a
# file's own header beside a licence it is that licence's disclaimer (libpng's png.h, X11's keysym
# headers): ``X AND warranty-disclaimer`` read as unknown gave way to the folder's licence or dropped
# the file. Only there: a repository's licence texts bundling other projects' (numpy's wheel) stay as read.
DISCLAIMER = "LicenseRef-scancode-warranty-disclaimer"


def _without_disclaimer(own: LicenseFinding | None) -> LicenseFinding | None:
    if own is None or (spdx := without(own.spdx, {DISCLAIMER})) == own.spdx:
        return own   # none, or not beside a licence (alone it stays the unknown it is)
    return replace(own, spdx=spdx, set_aside=tuple(sorted({*own.set_aside, DISCLAIMER})))


def govern(path: str, own: LicenseFinding | None, statement: str | None, governance: JsonDict) -> JsonDict:
    """meta.license of one file (spdx, category, evidence) plus ``categories`` (each license id's
    category, for the policy), by the precedence in this module's docstring."""
    path = path.strip("/")
    if hit := _declared(path, governance, {OVERRIDE}):
        return _strip(hit)
    if sidecar := governance.get("sidecars", {}).get(path):
        return _strip(sidecar)
    ancestor = _ancestor(path, governance)
    own = _without_disclaimer(own)
    if own is not None and own.stray and ancestor is not None:  # a partial match of a short rule
        aside = sorted(set(ancestor["evidence"].get("set_aside", [])) | set(leaf_keys(own.spdx)))
        return {**ancestor, "evidence": {**ancestor["evidence"], "set_aside": aside}}
    if own is not None and own.named_only and ancestor is not None and ancestor["spdx"] and \
            {_kind(k) for k in leaf_keys(own.spdx)} == {_kind(k) for k in leaf_keys(ancestor["spdx"])} and \
            RANK[ancestor["category"]] >= RANK[own.category]:
        # ":license: BSD, see LICENSE": the file names its project's license, the project says which
        # one (never a more permissive one than the file's reading)
        return {**ancestor, "evidence": {**ancestor["evidence"], "also": {"spdx": own.spdx, "category": own.category,
                                                                          "file": path}}}
    if own is not None and not own.is_reference_only and not (own.category == "unknown" and ancestor):
        entry = {**license_meta(own, path, "file"), "categories": dict(sorted(own.categories.items()))}
        if (hit := _declared(path, governance, {AGGREGATE})) is not None:
            both = combine([own, LicenseFinding(hit["spdx"], hit["evidence"]["score"], hit["categories"])])
            entry = {**license_meta(both, path, "file"), "categories": dict(sorted(both.categories.items()))}
        return entry
    strength = rights_reserved(statement)
    if strength == STRONG or (strength == WEAK and ancestor is None):
        return {**license_meta(proprietary_finding(strength), path, "file"),
                "categories": proprietary_finding(strength).categories}
    if ancestor is not None:
        return ancestor
    if reserved := governance.get("reserved"):
        return _strip(reserved)
    if own is not None:  # only a pointer or an unknown license, and nothing above it
        return {**license_meta(own, path, "file"), "categories": dict(sorted(own.categories.items()))}
    return {**license_meta(None, None, "repository"), "categories": {}}


def _ancestor(path: str, governance: JsonDict) -> JsonDict | None:
    """The declaration naming the file, else the nearest folder's license (its documentation
    clause for documentation files)."""
    if hit := _declared(path, governance, {"closest", AGGREGATE}):
        return _strip(hit)
    owners: list[JsonDict] = []
    for scope in governance.get("scopes", []):
        if not _under(path, scope["base"]) or ("owned" in scope and not owns(scope, path)):
            continue
        if "owned" in scope:  # a file several distributions list is governed by all of them
            if not owners or owners[0]["base"] == scope["base"]:
                owners.append(scope)
                continue
            break
        if owners:
            break
        if "docs" in scope and is_documentation(path) and scope["evidence"]["file"] != path:
            return _strip(scope["docs"])
        return _strip(scope)
    if len(owners) > 1:
        both = combine([LicenseFinding(s["spdx"], s["evidence"]["score"], s["categories"]) for s in owners])
        return {**license_meta(both, owners[0]["evidence"]["file"], owners[0]["evidence"]["level"]),
                "categories": dict(sorted(both.categories.items()))}
    return _strip(owners[0]) if owners else None
