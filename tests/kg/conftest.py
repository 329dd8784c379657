"""Shared fixtures of the kg tests: the test dump (DBpedia ontology + instance triples) and servers.

The instance triples describe the entities of the 10 tweets of
``tweets/sport_tweets_10_with_dbpedia_uris.tsv`` (plus a few the texts mention) with types from
the real DBpedia ontology, English labels and redirects (for the lexicon annotator), and a
category graph with a 2-cycle (Sports <-> Recreation) and a self-loop (Cricket).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.kg.servers import OxigraphServer

R = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
C = "http://dbpedia.org/resource/Category:"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SUBJECT = "http://purl.org/dc/terms/subject"
BROADER = "http://www.w3.org/2004/02/skos/core#broader"
REDIRECT = "http://dbpedia.org/ontology/wikiPageRedirects"
DEJA_VU = R + "DÃ©jÃ\xa0_vu"

# entity local name -> (direct dbo types, label)
ENTITIES: dict[str, tuple[list[str], str]] = {
    "Chris_Gayle": (["Cricketer"], "Chris Gayle"),
    "Scottish_Football_League_First_Division": (["SoccerLeague"], "Scottish Football League First Division"),
    "Dumbarton_F.C.": (["SoccerClub"], "Dumbarton F.C."),
    "Raith_Rovers_F.C.": (["SoccerClub"], "Raith Rovers F.C."),
    "LGBT": ([], "LGBT"),
    "Bullying": ([], "Bullying"),
    "GLAAD": (["Organisation"], "GLAAD"),
    "England": (["Country"], "England"),
    "Finland": (["Country"], "Finland"),
    "New_Zealand": (["Country"], "New Zealand"),
    "Precious_(Boukenger)": (["FictionalCharacter"], "Precious (Boukenger)"),
    DEJA_VU[len(R):]: ([], "Déjà vu"),
    "Closed-circuit_television": ([], "Closed-circuit television"),
    "Novak_Djokovic": (["TennisPlayer"], "Novak Djokovic"),
    "Test_cricket": ([], "Test cricket"),
    "Lyon": (["City"], "Lyon"),
    "Vijay_(actor)": (["Actor"], "Vijay (actor)"),
    "River_Thames": (["River"], "River Thames"),
    "Chelsea,_London": (["Settlement"], "Chelsea, London"),
    "President": ([], "President"),
    # mentioned in the tweets, not linked in the TSV
    "Nathan_Lyon": (["Cricketer"], "Nathan Lyon"),
    "Murali_Vijay": (["Cricketer"], "Murali Vijay"),
    "Chelsea_F.C.": (["SoccerClub"], "Chelsea F.C."),
    "Barack_Obama": (["OfficeHolder"], "Barack Obama"),
}
# redirect local name -> (target local name, label of the redirect page)
REDIRECTS = {
    "Scottish_First_Division": ("Scottish_Football_League_First_Division", "Scottish First Division"),
    "Raith_Rovers": ("Raith_Rovers_F.C.", "Raith Rovers"),
    "Djokovic": ("Novak_Djokovic", "Djokovic"),
    "Thames": ("River_Thames", "Thames"),
    "Deja_vu": (DEJA_VU[len(R):], "Deja vu"),
    "N_Lyon": ("Nathan_Lyon", "N Lyon"),
    "M_Vijay": ("Murali_Vijay", "M Vijay"),
    "Chelsea_FC": ("Chelsea_F.C.", "Chelsea FC"),
    "Chelsea_Football_Club": ("Chelsea_F.C.", "Chelsea Football Club"),
    "Chelsea_(football_club)": ("Chelsea_F.C.", "Chelsea"),
    "Chelsea_(London)": ("Chelsea,_London", "Chelsea"),
    "Obama": ("Barack_Obama", "Obama"),
    "CCTV": ("Closed-circuit_television", "CCTV"),
}
# extra non-dbo types (dropped unless their namespace is asked for)
EXTRA_TYPES = {
    "Novak_Djokovic": ["http://www.w3.org/2002/07/owl#Thing", "http://schema.org/Person",
                       "http://dbpedia.org/class/yago/SerbianTennisPlayers"],
    "Chris_Gayle": ["http://www.w3.org/2002/07/owl#Thing", "http://schema.org/Person"],
}
SUBJECTS = {
    "Chris_Gayle": ["West_Indies_Test_cricketers", "Jamaican_cricketers"],
    "Nathan_Lyon": ["Australia_Test_cricketers"],
    "Murali_Vijay": ["India_Test_cricketers"],
    "Novak_Djokovic": ["Serbian_male_tennis_players"],
    "Dumbarton_F.C.": ["Football_clubs_in_Scotland"],
    "Raith_Rovers_F.C.": ["Football_clubs_in_Scotland"],
    "Chelsea_F.C.": ["Football_clubs_in_England"],
    "Lyon": ["Cities_in_France"],
    "GLAAD": ["LGBT_organizations"],
    "Barack_Obama": ["Presidents_of_the_United_States"],
}
BROADER_EDGES = [
    ("West_Indies_Test_cricketers", "Test_cricketers"),
    ("Australia_Test_cricketers", "Test_cricketers"),
    ("India_Test_cricketers", "Test_cricketers"),
    ("Test_cricketers", "Cricketers"),
    ("Jamaican_cricketers", "Cricketers"),
    ("Cricketers", "Cricket"),
    ("Cricket", "Cricket"),  # self-loop, as in the real Sports Tweets C hierarchy
    ("Cricket", "Sports"),
    ("Serbian_male_tennis_players", "Tennis_players"),
    ("Tennis_players", "Tennis"),
    ("Tennis", "Sports"),
    ("Football_clubs_in_Scotland", "Football_clubs"),
    ("Football_clubs_in_England", "Football_clubs"),
    ("Football_clubs", "Association_football"),
    ("Association_football", "Sports"),
    ("Sports", "Recreation"),
    ("Recreation", "Sports"),  # a 2-cycle
    ("Recreation", "Human_activities"),
    ("Cities_in_France", "Cities"),
    ("LGBT_organizations", "LGBT"),
    ("Presidents_of_the_United_States", "Heads_of_state"),
    ("Heads_of_state", "Politics"),
]


def assert_same_table(a, b) -> None:
    """Two FeatureTables hold the same instances, features, cells, hierarchy and labels."""
    assert list(a.instance_ids) == list(b.instance_ids)
    assert list(a.feature_names) == list(b.feature_names)
    assert (a.X != b.X).nnz == 0
    assert a.hierarchy == b.hierarchy
    assert list(a.y) == list(b.y)


class Generic:
    """A source without ``relation_tally``: :mod:`kg.rdf.relations` takes the generic path (relations + types)."""

    def __init__(self, source):
        self._source = source

    def __getattr__(self, name):
        if name == "relation_tally":
            raise AttributeError(name)
        return getattr(self._source, name)


def _nt_iri(iri: str) -> str:
    return f"<{iri}>"


def _nt_lit(text: str) -> str:
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{esc}"@en'


def instance_triples() -> list[str]:
    """N-Triples lines of the test instance data."""
    lines = []
    for name, (types, label) in ENTITIES.items():
        e = _nt_iri(R + name)
        for t in types:
            lines.append(f"{e} {_nt_iri(RDF_TYPE)} {_nt_iri(DBO + t)} .")
        for t in EXTRA_TYPES.get(name, []):
            lines.append(f"{e} {_nt_iri(RDF_TYPE)} {_nt_iri(t)} .")
        lines.append(f"{e} {_nt_iri(LABEL)} {_nt_lit(label)} .")
        for cat in SUBJECTS.get(name, []):
            lines.append(f"{e} {_nt_iri(SUBJECT)} {_nt_iri(C + cat)} .")
    for red, (target, label) in REDIRECTS.items():
        lines.append(f"{_nt_iri(R + red)} {_nt_iri(REDIRECT)} {_nt_iri(R + target)} .")
        lines.append(f"{_nt_iri(R + red)} {_nt_iri(LABEL)} {_nt_lit(label)} .")
    for child, parent in BROADER_EDGES:
        lines.append(f"{_nt_iri(C + child)} {_nt_iri(BROADER)} {_nt_iri(C + parent)} .")
    return lines


@pytest.fixture(scope="session")
def kg_dump_dir(tmp_path_factory, shared_data) -> Path:
    """A directory with ``ontology.owl`` (the real DBpedia ontology) and ``instances.nt``."""
    d = tmp_path_factory.mktemp("kgdump")
    shutil.copy(shared_data / "dbpedia" / "dbpedia_3.9.owl", d / "ontology.owl")
    (d / "instances.nt").write_text("\n".join(instance_triples()) + "\n", encoding="utf-8")
    return d


@pytest.fixture(scope="session")
def tweets10(shared_data):
    from kg.rdf.corpus import read_corpus

    return read_corpus(
        shared_data / "tweets" / "sport_tweets_10_with_dbpedia_uris.tsv",
        text_column="tweet",
        entity_columns=["Dbpedia_URI_1", "Dbpedia_URI_2", "Dbpedia_URI_3"],
    )


@pytest.fixture(scope="session")
def oxigraph_server(kg_dump_dir, tmp_path_factory):
    """``oxigraph serve-read-only`` on 127.0.0.1 over the test dump (session-wide, read-only)."""
    if shutil.which("oxigraph") is None:
        pytest.skip("the oxigraph server binary (pip install oxigraph) is not installed")
    srv = OxigraphServer(
        [kg_dump_dir / "ontology.owl", kg_dump_dir / "instances.nt"], tmp_path_factory.mktemp("oxi")
    ).start()
    yield srv
    srv.stop()
