"""The vocabulary of an RDF knowledge graph, as data: which predicates the route reads, and presets.

The route of :mod:`kg.rdf` (named after its first graph) serves any RDF graph: what it needs
to know of a graph is a :class:`Vocabulary`:

- ``instance_of`` / ``subclass_of``: the predicates typing an entity and ordering its classes
  (DBpedia: ``rdf:type`` / ``rdfs:subClassOf``; Wikidata: ``wdt:P31`` / ``wdt:P279``) -- the
  ``types`` features;
- ``subject`` / ``broader``: the predicates giving an entity's categories and ordering them
  (DBpedia: ``dct:subject`` / ``skos:broader``; Wikidata has none) -- the ``categories`` features;
- ``type_namespaces``: the IRI prefixes of the classes kept by default (``namespaces`` gives
  short names for ``--type-namespaces``);
- the lexicon's material: ``labels`` (``rdfs:label``; Wikidata also ``skos:altLabel``) in
  ``language``, of the resources under ``entities`` (minus those whose IRI holds one of
  ``not_entities``), ``redirects`` (a redirect page's name is a name of its target) and
  ``prior_links`` (each triple ``x p e`` counts once for ``e``'s prior: DBpedia's page links,
  Wikidata's sitelinks, ``schema:about``);
- ``same_as`` and ``equivalent_class``: the links between graphs (``owl:sameAs``,
  ``owl:equivalentClass``; :mod:`kg.rdf.sources.bridge`);
- ``id_pattern`` / ``id_namespace``: short entity ids an entity column may hold (``Q42`` ->
  ``http://www.wikidata.org/entity/Q42``);
- ``relations`` / ``not_relations``: the namespaces of the predicates that relate an entity to
  another (DBpedia: ``dbo:`` but its ``dbo:wikiPage...`` bookkeeping; Wikidata: ``wdt:``), minus those
  under ``not_relations`` and those of another role; ``subproperty_of`` orders them
  (``rdfs:subPropertyOf``; Wikidata: ``wdt:P1647``, stated of the property's entity: ``wd:P19
  wdt:P1647 wd:P276``, so its ``property_namespace`` is ``wd:``) -- the ``relations`` features
  (:mod:`kg.rdf.relations`). The dump index keeps relation triples only for a vocabulary
  :meth:`~Vocabulary.with_relations` (they are most of a dump: a run that asks for relations reads
  its files once more);
- ``skip_unused_lines``: whether the dump index skips the N-Triples lines of other predicates
  before parsing them (the Wikidata dump holds billions of lines, most of no use here). Such a
  line is never parsed, so a malformed one among them is not reported; DBpedia's files hold one
  predicate each, so its preset parses every line and reports every malformed one.

Two presets ship (:data:`PRESETS`): ``dbpedia`` (the route's behaviour before vocabularies
were data: every table is the same) and ``wikidata``. Any other graph is a small TOML file
(:func:`load_preset`): predicates as full IRIs or prefixed names (``rdf:``, ``rdfs:``, ``owl:``,
``skos:``, ``dct:``, ``schema:``, ``wd:``, ``wdt:`` and those of a ``[prefixes]`` table)::

    name = "yago"
    instance_of = ["rdf:type"]
    subclass_of = ["rdfs:subClassOf"]
    type_namespaces = ["http://yago-knowledge.org/resource/", "schema:"]
    labels = ["rdfs:label"]
    language = "en"
    entities = ["http://yago-knowledge.org/resource/"]

Examples
--------
>>> v = preset("wikidata")
>>> v.instance_of, v.language
(('http://www.wikidata.org/prop/direct/P31',), 'en')
>>> v.expand_entity("Q42"), v.expand_entity("wd:Q5"), v.expand_entity("Douglas Adams")
('http://www.wikidata.org/entity/Q42', 'http://www.wikidata.org/entity/Q5', 'Douglas Adams')
>>> preset("dbpedia").resolve_namespaces(["yago", "dbo"])
('http://dbpedia.org/class/yago/', 'http://dbpedia.org/ontology/')
>>> preset("wikidata").with_language("de").fingerprint() != preset("wikidata").fingerprint()
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputFormatError, KgfsError, MissingFileError, ParameterError, param

__all__ = ["DBPEDIA", "PREFIXES", "PRESETS", "WIKIDATA", "Vocabulary", "load_preset", "preset", "vocabulary_of"]

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"

#: Prefixes a preset file may use without declaring them.
PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "skos": SKOS, "dct": "http://purl.org/dc/terms/",
            "schema": "http://schema.org/", "wd": WD, "wdt": WDT, "dbo": "http://dbpedia.org/ontology/",
            "dbr": "http://dbpedia.org/resource/", "xsd": "http://www.w3.org/2001/XMLSchema#"}

# the fields that are lists of IRIs (the roles of predicates, and namespaces)
_IRI_LISTS = ("instance_of", "subclass_of", "subject", "broader", "labels", "redirects", "prior_links", "same_as",
              "equivalent_class", "type_namespaces", "entities", "relations", "not_relations", "subproperty_of")
# the fields that only matter to a vocabulary that indexes relations (left out of the others' fingerprints)
_RELATION_FIELDS = ("relations", "not_relations", "subproperty_of", "index_relations", "property_namespace")


@dataclass(frozen=True)
class Vocabulary:
    """What the RDF route reads of a graph (see the module).

    Every field is data: a preset, a TOML file or keyword arguments give the same object. Two
    vocabularies with the same fields read a dump the same way (:meth:`fingerprint`).

    Examples
    --------
    >>> v = Vocabulary("mine", instance_of=("http://example.org/isA",), type_namespaces=("http://example.org/c/",))
    >>> v.roles()["types"], v.categories_supported
    (('http://example.org/isA',), False)
    """

    name: str
    instance_of: tuple[str, ...] = (RDF + "type",)
    subclass_of: tuple[str, ...] = (RDFS + "subClassOf",)
    subject: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()
    type_namespaces: tuple[str, ...] = ()
    namespaces: Mapping[str, str] = field(default_factory=dict)
    labels: tuple[str, ...] = (RDFS + "label",)
    language: str | None = "en"
    entities: tuple[str, ...] = ()
    not_entities: tuple[str, ...] = ()
    redirects: tuple[str, ...] = ()
    prior_links: tuple[str, ...] = ()
    same_as: tuple[str, ...] = (OWL + "sameAs",)
    equivalent_class: tuple[str, ...] = (OWL + "equivalentClass",)
    id_pattern: str | None = None
    id_namespace: str | None = None
    skip_unused_lines: bool = False
    relations: tuple[str, ...] = ()
    not_relations: tuple[str, ...] = ()
    subproperty_of: tuple[str, ...] = (RDFS + "subPropertyOf",)
    index_relations: bool = False
    property_namespace: str | None = None

    def __post_init__(self):
        for name in _IRI_LISTS + ("not_entities",):
            v = getattr(self, name)
            if isinstance(v, str) or not isinstance(v, tuple):
                object.__setattr__(self, name, (v,) if isinstance(v, str) else tuple(v))
        object.__setattr__(self, "namespaces", dict(self.namespaces))
        if not self.instance_of and not self.subject:
            raise KgfsError(f"vocabulary {self.name!r}: give instance_of (types) or subject (categories) predicates")
        for name in _IRI_LISTS:
            for iri in getattr(self, name):
                if not isinstance(iri, str) or not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$", iri) or \
                        any(c in iri for c in '<>"{}|^`\\'):
                    raise KgfsError(f"vocabulary {self.name!r}: {name} has {iri!r}, not an absolute IRI")
        if self.property_namespace is not None and not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$",
                                                                str(self.property_namespace)):
            raise KgfsError(f"vocabulary {self.name!r}: property_namespace has {self.property_namespace!r}, not an "
                            "absolute IRI")
        if (self.id_pattern is None) != (self.id_namespace is None):
            raise KgfsError(f"vocabulary {self.name!r}: give id_pattern and id_namespace together")
        if self.id_pattern is not None:
            try:
                re.compile(self.id_pattern)
            except re.error as exc:
                raise KgfsError(f"vocabulary {self.name!r}: id_pattern {self.id_pattern!r}: {exc}") from None
        if self.language is not None and not re.fullmatch(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*", self.language):
            raise KgfsError(f"vocabulary {self.name!r}: {self.language!r} is not a language tag (en, de, pt-br)")
        if self.language is not None:
            object.__setattr__(self, "language", self.language.lower())

    # ------------------------------------------------------------------ what it reads
    @property
    def categories_supported(self) -> bool:
        """Whether the graph has categories (``subject`` predicates).

        Returns
        -------
        bool

        Examples
        --------
        >>> preset("dbpedia").categories_supported, preset("wikidata").categories_supported
        (True, False)
        """
        return bool(self.subject)

    def roles(self) -> dict[str, tuple[str, ...]]:
        """The fact tables the dump index keeps and the predicates of each (empty roles included).

        Returns
        -------
        dict of str -> tuple of str
            ``types``, ``categories``, ``subclass``, ``broader``, ``same_as``, ``equivalent_class``.

        Examples
        --------
        >>> preset("wikidata").roles()["subclass"]
        ('http://www.wikidata.org/prop/direct/P279',)
        """
        out = {"types": self.instance_of, "categories": self.subject, "subclass": self.subclass_of,
               "broader": self.broader, "same_as": self.same_as, "equivalent_class": self.equivalent_class}
        if self.index_relations:
            out["subproperty"] = self.subproperty_of
        return out

    @property
    def relations_supported(self) -> bool:
        """Whether the vocabulary names relation predicates (``relations`` namespaces).

        Returns
        -------
        bool

        Examples
        --------
        >>> preset("wikidata").relations_supported, Vocabulary("x").relations_supported
        (True, False)
        """
        return bool(self.relations)

    def is_relation(self, predicate: str) -> bool:
        """Whether ``predicate`` relates entities: under ``relations``, not under ``not_relations``, of no other role.

        Parameters
        ----------
        predicate : str
            A predicate IRI.

        Returns
        -------
        bool

        Examples
        --------
        >>> w = preset("wikidata")
        >>> w.is_relation(WDT + "P19"), w.is_relation(WDT + "P31"), w.is_relation(RDFS + "label")
        (True, False, False)
        >>> preset("dbpedia").is_relation("http://dbpedia.org/ontology/wikiPageWikiLink")
        False
        """
        return (predicate.startswith(self.relations) and not predicate.startswith(self.not_relations)
                and predicate not in self._other_roles())

    def property_entity(self, predicate: str) -> str:
        """The IRI a relation predicate's own statements (its subproperty-of) are made of: itself, or with a
        ``property_namespace`` the entity of the same local name (Wikidata: ``wdt:P19`` -> ``wd:P19``).

        Examples
        --------
        >>> preset("wikidata").property_entity(WDT + "P19"), preset("dbpedia").property_entity("http://x/p")
        ('http://www.wikidata.org/entity/P19', 'http://x/p')
        """
        if self.property_namespace is None:
            return predicate
        for ns in self.relations:
            if predicate.startswith(ns):
                return self.property_namespace + predicate[len(ns):]
        return predicate

    def property_predicate(self, entity: str) -> str:
        """The relation predicate of a property's entity (the inverse of :meth:`property_entity`).

        Examples
        --------
        >>> preset("wikidata").property_predicate(WD + "P276")
        'http://www.wikidata.org/prop/direct/P276'
        """
        if self.property_namespace is None or not entity.startswith(self.property_namespace) or not self.relations:
            return entity
        return self.relations[0] + entity[len(self.property_namespace):]

    def _other_roles(self) -> frozenset:
        cached = self.__dict__.get("_roles_cache")
        if cached is None:
            cached = frozenset(p for ps in (self.instance_of, self.subclass_of, self.subject, self.broader,
                                            self.labels, self.redirects, self.prior_links, self.same_as,
                                            self.equivalent_class, self.subproperty_of) for p in ps)
            object.__setattr__(self, "_roles_cache", cached)
        return cached

    def with_relations(self) -> Vocabulary:
        """The same vocabulary, its dump index keeping relation triples (entity, relation predicate, IRI).

        Returns
        -------
        Vocabulary

        Raises
        ------
        KgfsError
            The vocabulary names no relation predicates.

        Examples
        --------
        >>> w = preset("wikidata")
        >>> w.with_relations().index_relations, w.with_relations().fingerprint() != w.fingerprint()
        (True, True)
        """
        if not self.relations:
            raise KgfsError(f"vocabulary {self.name!r} names no relation predicates (give `relations`, the "
                            "namespaces of its relation predicates, in the preset file)")
        return self if self.index_relations else dataclasses.replace(self, index_relations=True)

    def predicates(self) -> tuple[str, ...]:
        """Every predicate the vocabulary reads (what the dump index keeps), sorted.

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> len(preset("dbpedia").predicates())
        9
        """
        preds = {p for ps in self.roles().values() for p in ps}
        preds.update(self.labels, self.redirects, self.prior_links)
        return tuple(sorted(preds))

    def resolve_namespaces(self, namespaces: Iterable[str] | None) -> tuple[str, ...]:
        """Type namespaces by short name (this vocabulary's ``namespaces``) or full prefix, sorted;
        ``None`` gives the vocabulary's ``type_namespaces``.

        Parameters
        ----------
        namespaces : iterable of str, optional

        Returns
        -------
        tuple of str

        Raises
        ------
        ValueError
            An unknown short name, or none at all.

        Examples
        --------
        >>> preset("wikidata").resolve_namespaces(None)
        ('http://www.wikidata.org/entity/',)
        """
        if namespaces is None:
            if not self.type_namespaces:
                raise ParameterError(f"vocabulary {self.name!r} has no type_namespaces: give "
                                     f"{param('type_namespaces')}")
            return tuple(sorted(set(self.type_namespaces)))
        out = []
        for ns in namespaces:
            ns = self.namespaces.get(ns, ns)
            if ":" not in ns:
                raise ValueError(f"unknown namespace {ns!r}; use a full IRI prefix or one of {sorted(self.namespaces)}")
            out.append(ns)
        if not out:
            raise ValueError("at least one type namespace is needed")
        return tuple(sorted(set(out)))

    def expand_entity(self, value: str) -> str:
        """A short entity id (``Q42``, ``wd:Q42``) as its IRI; anything else as it is.

        Parameters
        ----------
        value : str

        Returns
        -------
        str

        Examples
        --------
        >>> preset("wikidata").expand_entity(" Q42 "), preset("dbpedia").expand_entity("Q42")
        ('http://www.wikidata.org/entity/Q42', 'Q42')
        """
        if self.id_pattern is None:
            return value
        v = value.strip()
        for prefix in ("wd:", self.id_namespace, "https://www.wikidata.org/wiki/" if self.id_namespace == WD else None):
            if prefix and v.startswith(prefix) and re.fullmatch(self.id_pattern, v[len(prefix):]):
                return self.id_namespace + v[len(prefix):]
        return self.id_namespace + v if re.fullmatch(self.id_pattern, v) else value

    def expand_property(self, value: str, option: str | None = None) -> str:
        """A predicate as its IRI: a full IRI, a prefixed name (``dbo:occupation``, ``wdt:P106``, or one of the
        vocabulary's own ``namespaces``: ``swrc:affiliation`` for the AIFB preset), or, when the relations are
        Wikidata's, a property id (``P106``).

        Parameters
        ----------
        value : str
        option : str, optional
            The command-line option it came from (named in the error).

        Returns
        -------
        str

        Raises
        ------
        KgfsError
            ``value`` is none of those.

        Examples
        --------
        >>> preset("wikidata").expand_property("P106"), preset("dbpedia").expand_property("dbo:occupation")
        ('http://www.wikidata.org/prop/direct/P106', 'http://dbpedia.org/ontology/occupation')
        """
        v = value.strip()
        if re.fullmatch(r"P[1-9][0-9]*", v) and WDT in self.relations:
            return WDT + v
        head, sep, tail = v.partition(":")
        if sep and not tail.startswith("//") and (head in PREFIXES or head in self.namespaces):
            v = (PREFIXES[head] if head in PREFIXES else self.namespaces[head]) + tail
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://\S+$", v) or any(c in v for c in '<>"{}|^`\\'):
            where = f" ({option})" if option else ""
            raise KgfsError(f"{value!r} is not a predicate IRI, a prefixed name ({', '.join(sorted(PREFIXES))}:) "
                            f"or a Wikidata property id{where}")
        return v

    # ------------------------------------------------------------------ identity
    def with_language(self, language: str | None) -> Vocabulary:
        """The same vocabulary with another label language (``None``: unchanged).

        Parameters
        ----------
        language : str, optional

        Returns
        -------
        Vocabulary

        Examples
        --------
        >>> preset("wikidata").with_language("DE").language
        'de'
        """
        return self if language is None else dataclasses.replace(self, language=language)

    def to_json(self) -> dict:
        """Every field as JSON (what :meth:`from_json` reads back).

        Returns
        -------
        dict

        Examples
        --------
        >>> Vocabulary.from_json(preset("wikidata").to_json()) == preset("wikidata")
        True
        """
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping) -> Vocabulary:
        """The vocabulary of :meth:`to_json`'s form.

        Parameters
        ----------
        data : mapping

        Returns
        -------
        Vocabulary

        Examples
        --------
        See :meth:`to_json`.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise KgfsError(f"vocabulary: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(names))})")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def fingerprint(self) -> str:
        """A short hash of what decides how a dump is read (the name does not count).

        Returns
        -------
        str
            12 hexadecimal digits.

        Examples
        --------
        >>> len(preset("dbpedia").fingerprint())
        12
        """
        skip = {"name", "namespaces", "type_namespaces"}
        if not self.index_relations:  # the fingerprints of the vocabularies before relations existed
            skip.update(_RELATION_FIELDS)
        data = {k: v for k, v in self.to_json().items() if k not in skip}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]


DBPEDIA = Vocabulary(
    "dbpedia",
    instance_of=(RDF + "type",),
    subclass_of=(RDFS + "subClassOf",),
    subject=("http://purl.org/dc/terms/subject",),
    broader=(SKOS + "broader",),
    type_namespaces=("http://dbpedia.org/ontology/",),
    namespaces={"dbo": "http://dbpedia.org/ontology/", "yago": "http://dbpedia.org/class/yago/",
                "schema": "http://schema.org/", "owl": OWL, "wd": WD},
    labels=(RDFS + "label",),
    language="en",
    entities=("http://dbpedia.org/resource/",),
    not_entities=("/Category:",),
    redirects=("http://dbpedia.org/ontology/wikiPageRedirects",),
    prior_links=("http://dbpedia.org/ontology/wikiPageWikiLink",),
    relations=("http://dbpedia.org/ontology/",),
    not_relations=("http://dbpedia.org/ontology/wikiPage", "http://dbpedia.org/ontology/thumbnail"),
)

WIKIDATA = Vocabulary(
    "wikidata",
    instance_of=(WDT + "P31",),
    subclass_of=(WDT + "P279",),
    type_namespaces=(WD,),
    namespaces={"wd": WD},
    labels=(RDFS + "label", SKOS + "altLabel"),
    language="en",
    entities=(WD + "Q",),
    prior_links=("http://schema.org/about",),  # the sitelinks: <https://en.wikipedia.org/wiki/X> schema:about wd:Q..
    id_pattern=r"Q[1-9][0-9]*",
    id_namespace=WD,
    skip_unused_lines=True,
    relations=(WDT,),
    subproperty_of=(WDT + "P1647",),
    property_namespace=WD,
)

#: The presets by name (``--preset``).
PRESETS: dict[str, Vocabulary] = {"dbpedia": DBPEDIA, "wikidata": WIKIDATA}


def preset(name: str) -> Vocabulary:
    """A shipped preset by name.

    Parameters
    ----------
    name : str

    Returns
    -------
    Vocabulary

    Examples
    --------
    >>> preset("dbpedia").name
    'dbpedia'
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset {name!r} for {param('vocabulary')} (choose {', '.join(PRESETS)}, or a "
                             ".toml file)") from None


def _expand(value, prefixes: Mapping[str, str], path, key: str) -> str:
    if not isinstance(value, str):
        raise InputFormatError(f"{key}: expected IRIs (strings), got {value!r}", path)
    head, sep, tail = value.partition(":")
    if sep and head in prefixes and not tail.startswith("//"):
        return prefixes[head] + tail
    return value


def load_preset(path: str | os.PathLike) -> Vocabulary:
    """A vocabulary from a TOML file (see the module for its form).

    Parameters
    ----------
    path : path

    Returns
    -------
    Vocabulary

    Raises
    ------
    InputFormatError
        A file that is not TOML, an unknown key or a value of the wrong form, naming the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "mine.toml"
    >>> _ = p.write_text('instance_of = ["rdf:type"]\\ntype_namespaces = ["ex:"]\\n[prefixes]\\nex = "http://ex.org/c/"\\n')
    >>> v = load_preset(p)
    >>> v.name, v.type_namespaces, v.subclass_of
    ('mine', ('http://ex.org/c/',), ('http://www.w3.org/2000/01/rdf-schema#subClassOf',))
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MissingFileError(path, f"preset file not found ({param('vocabulary')})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"not a TOML preset file ({exc}) ({param('vocabulary')})", path) from None
    prefixes = dict(PREFIXES)
    extra = data.pop("prefixes", {})
    if not isinstance(extra, dict) or not all(isinstance(v, str) for v in extra.values()):
        raise InputFormatError(f"[prefixes]: expected name = \"IRI\" lines ({param('vocabulary')})", path)
    prefixes.update(extra)
    known = {f.name for f in dataclasses.fields(Vocabulary)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InputFormatError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known - {'name'}))}, "
                               f"[prefixes]) ({param('vocabulary')})", path)
    out: dict = {"name": data.pop("name", path.stem)}
    for k, v in data.items():
        if k in _IRI_LISTS:
            v = [v] if isinstance(v, str) else v
            if not isinstance(v, list):
                raise InputFormatError(f"{k}: expected a list of IRIs, got {v!r} ({param('vocabulary')})", path)
            out[k] = tuple(_expand(x, prefixes, path, k) for x in v)
        elif k == "namespaces":
            if not isinstance(v, dict):
                raise InputFormatError(f"namespaces: expected a table of short name = \"IRI\" "
                                       f"({param('vocabulary')})", path)
            out[k] = {a: _expand(b, prefixes, path, k) for a, b in v.items()}
        elif k == "not_entities":
            out[k] = tuple([v] if isinstance(v, str) else v)
        else:
            out[k] = v
    try:
        return Vocabulary(**out)
    except KgfsError as exc:
        raise InputFormatError(f"{exc} ({param('vocabulary')})", path) from None
    except TypeError as exc:
        raise InputFormatError(f"{exc} ({param('vocabulary')})", path) from None


def vocabulary_of(value: str | os.PathLike | Vocabulary | None, language: str | None = None) -> Vocabulary:
    """The vocabulary a value names: a preset's name, a TOML file, or a vocabulary; ``None`` is DBpedia.

    The one resolver of presets: the command line's ``--preset`` and :class:`~kg.features.KGFeatures`'s
    ``vocabulary`` both come here.

    Parameters
    ----------
    value : str, path, Vocabulary or None
    language : str, optional
        The label language (``--language``), replacing the preset's.

    Returns
    -------
    Vocabulary

    Examples
    --------
    >>> vocabulary_of(None).name, vocabulary_of("wikidata", "fr").language
    ('dbpedia', 'fr')
    """
    if value is None:
        v = DBPEDIA
    elif isinstance(value, Vocabulary):
        v = value
    elif str(value) in PRESETS:
        v = PRESETS[str(value)]
    elif str(value).endswith(".toml") or Path(value).is_file():
        v = load_preset(value)
    else:
        v = preset(str(value))
    return v.with_language(language)
