"""WordNet 3.0 nouns: the hypernymy closure embedded by Nickel & Kiela (2017) and the subtrees of
Ganea et al.'s Table 2.

Files: an NLTK data root <generated_dir>/nltk_data, with the WordNet 3.0 dict files under
corpora/wordnet/ (what `nltk.corpus.wordnet` reads with NLTK_DATA=<generated_dir>/nltk_data):
data.{noun,verb,adj,adv}, index.{noun,verb,adj,adv,sense}, *.exc, cntlist.rev (checked against the
sha256 of Debian's wordnet-base / wordnet-sense-index 3.0 in files.DATASETS["wordnet"]) and `lexnames`,
written by `fetch` from LEXNAMES (the 45 lines of the lexnames(5WN) man page). `fetch` copies the dict
files from a WordNet 3.0 dict folder: --mirror, else Debian's /usr/share/wordnet (installed with
apt-get first when it is missing and apt-get can be run; otherwise the error says what to install).

The suite reads data.noun and index.noun itself (no NLTK needed):
    data.noun   one synset per line: offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt
                [pointer_symbol offset pos source/target]... | gloss
    index.noun  one lemma per line: lemma pos synset_cnt p_cnt [symbol]... sense_cnt tagsense_cnt
                offset... (the offsets in sense order)
Synsets are named as NLTK names them: <first lemma, lower case>.n.<its sense number, 2 digits>
(e.g. animal.n.01); nodes are numbered in data.noun's order.

The closure (the Poincare-embedding paper's transitive_closure.py): for every noun synset u, one edge
(u, h) to each of its transitive hypernyms h, following hypernym (@) and instance-hypernym (@i)
pointers: 82,115 nodes and 743,086 edges for WordNet 3.0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from noneuclid.config import sweep_values
from noneuclid.data import files
from noneuclid.data.files import DataError

ROOT = "nltk_data"  # the NLTK data root, under generated_dir
FOLDER = f"{ROOT}/corpora/wordnet"  # = files.DATASETS["wordnet"].folder
DEBIAN_DICT = Path("/usr/share/wordnet")
INSTALL_HINT = (
    "apt-get install wordnet-base wordnet-sense-index (Debian/Ubuntu; as root), then: "
    "python -m noneuclid.data fetch wordnet --data-dir GENERATED_DIR; or pass any WordNet 3.0 "
    "dict folder with --wordnet-dict /path/to/WordNet-3.0/dict"
)
HYPERNYM_POINTERS = ("@", "@i")
SUBTREES = tuple(sweep_values("hnn/table2", "data.subtree"))  # Ganea et al., Table 2 (its experiment's sweep)
NOUNS, CLOSURE_EDGES = 82_115, 743_086  # the WordNet 3.0 noun closure's nodes and edges

# lexnames(5WN): file number, lexicographer file, syntactic category (1 noun, 2 verb, 3 adj, 4 adv)
LEXNAMES = """adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body
noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive
noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation
noun.shape noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication
verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception
verb.possession verb.social verb.stative verb.weather adj.ppl""".split()
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def lexnames_text() -> str:
    """The `lexnames` file: "NN<TAB>name<TAB>category" per line, 45 lines."""
    return "".join(f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def folder(generated_dir) -> Path:
    return Path(generated_dir) / FOLDER


def fetch(generated_dir, mirror=None) -> Path:
    """Fill <generated_dir>/nltk_data/corpora/wordnet from a WordNet 3.0 dict folder (mirror, else
    Debian's /usr/share/wordnet), write `lexnames`, and verify every file's sha256."""
    source = Path(mirror) if mirror is not None else DEBIAN_DICT
    expected = files.DATASETS["wordnet"].sha256
    if mirror is None and not (source / "index.sense").is_file():
        install_with_apt()
    if not (source / "data.noun").is_file():
        raise DataError(f"no WordNet 3.0 dict files in {source}. Install them with: {INSTALL_HINT}")
    dest = folder(generated_dir)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "lexnames").write_text(lexnames_text())
    for name in expected:
        if name == "lexnames" or ((dest / name).is_file() and files.sha256sum(dest / name) == expected[name]):
            continue
        if not (source / name).is_file():
            raise DataError(
                f"{source} lacks {name} (index.sense is in Debian's wordnet-sense-index). Install with: {INSTALL_HINT}"
            )
        tmp = files.temporary_sibling(dest / name)
        shutil.copyfile(source / name, tmp)
        os.replace(tmp, dest / name)
    return require(generated_dir)


def install_with_apt() -> None:
    """apt-get install Debian's WordNet 3.0 packages, where apt-get exists and we are root; else nothing
    (fetch then says what to install)."""
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return
    print("installing WordNet 3.0: apt-get update && apt-get install -y wordnet-base wordnet-sense-index", flush=True)
    if subprocess.call(["apt-get", "update", "-q"]) == 0:
        subprocess.call(["apt-get", "install", "-y", "-q", "wordnet-base", "wordnet-sense-index"])


def require(generated_dir) -> Path:
    """The prepared corpora/wordnet folder, after checking every file's sha256 (DataError says what to run)."""
    root = Path(generated_dir)
    if not (root / FOLDER / "data.noun").is_file():
        raise DataError(
            f"WordNet 3.0 is not prepared in {root / FOLDER}. Run: make data, or "
            f"python -m noneuclid.data fetch wordnet --data-dir {root} (needs {INSTALL_HINT})"
        )
    return files.require("wordnet", root)


# -- parsing ---------------------------------------------------------------------------------------------


def _lines(path: Path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("  "):  # the licence header
                yield line


def parse_nouns(dict_dir) -> tuple[list[str], list[list[int]], list[list[int]]]:
    """(NLTK names of the noun synsets in data.noun order, the direct hypernyms (@) of each node, its
    direct instance hypernyms (@i)), as node ids."""
    dict_dir = Path(dict_dir)
    offsets, first_lemma, pointers = [], [], []
    for line in _lines(dict_dir / "data.noun"):
        fields = line.split(" | ", 1)[0].split()
        words = int(fields[3], 16)
        offsets.append(int(fields[0]))
        first_lemma.append(fields[4].lower())
        at = 4 + 2 * words
        pointers.append([(fields[at + 1 + 4 * k], int(fields[at + 2 + 4 * k])) for k in range(int(fields[at]))])
    senses = {}  # lemma -> its noun synset offsets in sense order
    for line in _lines(dict_dir / "index.noun"):
        fields = line.split()
        count = int(fields[2])
        senses[fields[0]] = [int(o) for o in fields[len(fields) - count :]]
    names = [f"{lemma}.n.{senses[lemma].index(off) + 1:02d}" for lemma, off in zip(first_lemma, offsets)]
    node = {off: i for i, off in enumerate(offsets)}
    return names, *([[node[o] for sym, o in ptrs if sym == symbol] for ptrs in pointers] for symbol in ("@", "@i"))


def _ancestors(parents: list[list[int]], inherited: list[frozenset] | None = None) -> list[frozenset]:
    """For each node u of a DAG given by its direct parents: A(u) = union over parents p of
    {p} | A(p) | inherited[p] (inherited: sets already known for the parents, e.g. their hypernyms)."""
    ancestors: list[frozenset | None] = [None] * len(parents)
    extra = inherited or [frozenset()] * len(parents)
    for root in range(len(parents)):
        stack = [root]  # iterative post-order: hierarchies are deeper than Python's recursion limit allows
        while stack:
            u = stack[-1]
            todo = [p for p in parents[u] if ancestors[p] is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if ancestors[u] is None:
                ancestors[u] = frozenset(parents[u]).union(*(ancestors[p] | extra[p] for p in parents[u]))
    return ancestors


def closure(hypernyms: list[list[int]], instance_hypernyms: list[list[int]] | None = None) -> np.ndarray:
    """The transitive closure [edges, 2] of (node, ancestor) pairs, sorted; a node is not its own ancestor.

    As transitive_closure.py of the Poincare-embedding code (NLTK's synset.closure): the ancestors of u
    are the nodes reached by a path of instance-hypernym steps followed by hypernym steps (@i* @*).
    """
    plain = _ancestors(hypernyms)
    full = (
        plain
        if instance_hypernyms is None
        else [a | plain[u] for u, a in enumerate(_ancestors(instance_hypernyms, plain))]
    )
    pairs = [(u, a) for u in range(len(full)) for a in sorted(full[u])]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


@dataclass
class Hierarchy:
    """Node names [nodes] and the closure's (node, ancestor) edges [edges, 2]."""

    names: list[str]
    edges: Tensor

    @property
    def size(self) -> int:
        return len(self.names)

    def descendants(self, root: str) -> Tensor:
        """Bool mask [nodes]: the nodes that have `root` among their ancestors (root excluded)."""
        if root not in self.names:
            raise ValueError(f"no node {root!r} in the hierarchy (names look like {self.names[0]!r})")
        mask = torch.zeros(self.size, dtype=torch.bool)
        mask[self.edges[self.edges[:, 1] == self.names.index(root), 0]] = True
        return mask

    def restricted(self, root: str) -> Hierarchy:
        """The closure of `root` and its descendants (e.g. the mammal closure of Nickel & Kiela)."""
        keep = self.descendants(root)
        keep[self.names.index(root)] = True
        new_id = torch.full((self.size,), -1, dtype=torch.long)
        new_id[keep] = torch.arange(int(keep.sum()))
        inside = keep[self.edges].all(1)
        return Hierarchy([n for n, k in zip(self.names, keep.tolist()) if k], new_id[self.edges[inside]])


def nouns(generated_dir) -> Hierarchy:
    """The WordNet 3.0 noun closure, cached as closure.pt beside the dict files (parsing takes seconds)."""
    dict_dir = require(generated_dir)
    cache = dict_dir / "closure.pt"
    if cache.is_file():
        data = torch.load(cache)
        return Hierarchy(data["names"], data["edges"])
    names, hypernyms, instance_hypernyms = parse_nouns(dict_dir)
    h = Hierarchy(names, torch.from_numpy(closure(hypernyms, instance_hypernyms)))
    tmp = files.temporary_sibling(cache)
    torch.save({"names": h.names, "edges": h.edges}, tmp)
    os.replace(tmp, cache)
    return h


def toy(depth: int = 4, branching: int = 4) -> Hierarchy:
    """A hand-made balanced tree for tests and the smoke profile: root entity.n.01; its children are
    named like the real subtrees' roots (SUBTREES, then t4.n.01, ...) so that the smoke profile asks
    for the same subtrees; the k-th child of "x.n.01" is "x_k.n.01"."""
    names, parents, level = ["entity.n.01"], [[]], [0]
    roots = list(SUBTREES) + [f"t{k}.n.01" for k in range(len(SUBTREES), branching)]
    for _ in range(depth):
        nxt = []
        for p in level:
            for k in range(branching):
                names.append(roots[k] if p == 0 else f"{names[p][:-5]}_{k}.n.01")
                parents.append([p])
                nxt.append(len(names) - 1)
        level = nxt
    return Hierarchy(names, torch.from_numpy(closure(parents)))


def load(hierarchy: str, generated_dir) -> Hierarchy:
    """data.hierarchy: "wordnet" (the noun closure), "wordnet_mammal" (its mammal.n.01 part) or "toy"."""
    if hierarchy == "wordnet":
        return nouns(generated_dir)
    if hierarchy == "wordnet_mammal":
        return nouns(generated_dir).restricted("mammal.n.01")
    if hierarchy == "toy":
        return toy()
    raise ValueError(f"unknown hierarchy {hierarchy!r}: choose data.hierarchy=wordnet, wordnet_mammal or toy")


def split(count: int, seed: int, test_fraction: float = 0.2) -> Tensor:
    """Bool mask [count], True for test: a seeded random `test_fraction` of the nodes."""
    perm = torch.randperm(count, generator=torch.Generator().manual_seed(seed))
    mask = torch.zeros(count, dtype=torch.bool)
    mask[perm[: round(test_fraction * count)]] = True
    return mask
