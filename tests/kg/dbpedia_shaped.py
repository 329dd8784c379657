"""A DBpedia-shaped dump of labelled entities (types from the real DBpedia ontology, a category graph).

Used by tests/kg/test_features.py and benchmarks/bench_grid_lookups.py: ``write_dump(folder, n)``
writes ``ontology.owl`` (a copy of the real DBpedia 3.9 ontology) and ``instances.nt`` (``n``
entities, half sportspeople and clubs, half places, each with a ``dbo`` type and categories whose
``skos:broader`` chains are four levels deep, with a 2-cycle at the top as in DBpedia), and returns
the entity IRIs and their labels. About one entity in ten has the other group's type (noise) and one
in twenty has no type or category at all (unknown to the source).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

R = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
C = "http://dbpedia.org/resource/Category:"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SUBJECT = "http://purl.org/dc/terms/subject"
BROADER = "http://www.w3.org/2004/02/skos/core#broader"

SPORT_TYPES = ["Cricketer", "SoccerPlayer", "TennisPlayer", "BasketballPlayer", "SoccerClub", "GolfPlayer"]
PLACE_TYPES = ["City", "Country", "River", "Village", "Mountain", "Town"]
# leaf category -> its chain upward (each level one broader edge); the tops form a 2-cycle
SPORT_CHAINS = {
    "Cricketers_from_{}": ["Cricketers", "Cricket", "Team_sports", "Sports"],
    "Footballers_from_{}": ["Footballers", "Association_football", "Team_sports", "Sports"],
    "Tennis_players_from_{}": ["Tennis_players", "Tennis", "Racket_sports", "Sports"],
    "Golfers_from_{}": ["Golfers", "Golf", "Individual_sports", "Sports"],
}
PLACE_CHAINS = {
    "Cities_in_{}": ["Cities", "Populated_places", "Human_settlements", "Geography"],
    "Rivers_of_{}": ["Rivers", "Bodies_of_water", "Landforms", "Geography"],
    "Mountains_of_{}": ["Mountains", "Landforms", "Physical_geography", "Geography"],
}
REGIONS = ["England", "India", "Chile", "Kenya", "Norway", "Japan"]
TOP_CYCLE = [("Sports", "Recreation"), ("Recreation", "Sports"), ("Geography", "Earth_sciences")]


def instance_lines(n: int, seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """N-Triples lines of ``n`` labelled entities, their IRIs and labels (``sport`` / ``place``)."""
    rng = random.Random(seed)
    lines: list[str] = []
    iris, labels = [], []
    edges: set[tuple[str, str]] = set(TOP_CYCLE)
    for i in range(n):
        label = "sport" if i % 2 == 0 else "place"
        iri = f"{R}Entity_{i:05d}"
        iris.append(iri)
        labels.append(label)
        if i % 20 == 7:  # unknown to the source: no type, no category
            continue
        group = label if rng.random() > 0.1 else ("place" if label == "sport" else "sport")
        types, chains = (SPORT_TYPES, SPORT_CHAINS) if group == "sport" else (PLACE_TYPES, PLACE_CHAINS)
        lines.append(f"<{iri}> <{RDF_TYPE}> <{DBO}{rng.choice(types)}> .")
        for pattern in rng.sample(sorted(chains), k=rng.choice([1, 2])):
            leaf = pattern.format(rng.choice(REGIONS))
            lines.append(f"<{iri}> <{SUBJECT}> <{C}{leaf}> .")
            chain = [leaf, *chains[pattern]]
            edges.update(zip(chain, chain[1:]))
    lines.extend(f"<{C}{a}> <{BROADER}> <{C}{b}> ." for a, b in sorted(edges))
    return lines, iris, labels


def write_dump(folder: Path, shared_data: Path, n: int = 120, seed: int = 0) -> tuple[list[str], list[str]]:
    """Write ``ontology.owl`` and ``instances.nt`` into ``folder``; return the entity IRIs and labels."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(shared_data / "dbpedia" / "dbpedia_3.9.owl", folder / "ontology.owl")
    lines, iris, labels = instance_lines(n, seed)
    (folder / "instances.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return iris, labels
