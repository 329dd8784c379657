"""Joint feature selection and hierarchical classifier design with a genetic algorithm.

Freeman, Kulic & Basir, *Joint feature selection and hierarchical classifier design*
(IEEE SMC 2011), section III. A genome describes a tree of "base classifiers" (k-NN, k=1 by
default) that split the classes into progressively smaller groups, and the features of every
base classifier; a GA searches genomes, scored by the tree's estimated accuracy minus
penalties for features and levels (Eq. 10).

Modules (tested in ``tests/selection/class_hierarchy/test_ga_tree.py``):

- :mod:`~selection.class_hierarchy.ga_tree.genome` (section III-A, Fig. 3 and 4): :class:`Genome`,
  ``features`` (C-1 x F, one 0/1 row per possible base classifier) and ``tree`` (C-1 levels x C
  classes, each gene an output number 0..C-1); :func:`separation_levels`, :func:`repair_tree_genes`.
- :mod:`~selection.class_hierarchy.ga_tree.layout` (Fig. 5 + removal of degenerate base
  classifiers): :func:`build_tree` -> :class:`GATree` of :class:`BaseNode`; :func:`flat_tree`.
- :mod:`~selection.class_hierarchy.ga_tree.measures` (section III-D): :func:`count_relief`
  (Eq. 8-9), :func:`relief` (Eq. 4-6), :func:`fisher_criterion` (Eq. 1-3) and the score of
  Eq. 10, :func:`penalised_score`.
- :mod:`~selection.class_hierarchy.ga_tree.fitness`: method 1 (``scoring="validation"``: accuracy
  of the whole tree on a validation split) and method 2 (per-base-classifier estimates combined
  with Eq. 7: ``"cv"``, ``"fisher"``, ``"fisher-scaled"``, ``"relief"``, ``"count-relief"``),
  with the caches; :data:`SCORINGS`.
- :mod:`~selection.class_hierarchy.ga_tree.search` (section III-E): :func:`run_ga`,
  :class:`GAResult`.
- :mod:`~selection.class_hierarchy.ga_tree.classifier`: the estimator :class:`GATreeClassifier`
  (``fit``, ``predict``, ``predict_proba``, ``tree_``, ``draw``).
- :mod:`~selection.class_hierarchy.ga_tree.drawing`: :func:`draw_tree` (PNG).
- :mod:`~selection.class_hierarchy.ga_tree.selector`: :class:`GATreeSelector`, registered as
  ``ga-tree`` (``kgfs evaluate --selectors ga-tree``) when the package is imported.

Choices where the paper is silent or ambiguous (each tested):

1. **Separation level (Fig. 4).** The pseudocode keeps overwriting "fully separated in level
   lvl" at every level after the first one where the class is alone; the text ("in which layer
   each class is separated") means the *first* such level, which is what is used. Fig. 4-5
   assume every class is separated somewhere; a genome whose classes stay together through
   all C-1 levels is repaired when its tree is built (:func:`repair_tree_genes`: they are
   split at the last level, the genome itself is kept). Without the repair such "unresolved"
   leaves let unnormalised measures (RELIEF, Fisher) score a tree that never separates two
   classes above one that does. (The tree code still handles a leaf of several classes: it
   predicts their majority training class, and Eq. 7 counts the other classes as 0.)
2. **Shared levels (Fig. 5).** ``numShared`` of class ``c`` is ``1 + max_{i<c}`` (number of
   leading levels where ``c`` and ``i`` have the same output), at least 1 (the root, added
   before the loop, is shared by every class) and at most ``sepLvl + 1``.
3. **Feature rows.** Fig. 5 "sets the features" of each new classifier. Before removal of
   degenerate classifiers there can be more than C-1 classifiers, after it never; so the
   surviving (non-degenerate) classifiers take the feature rows ``0, 1, ...`` in the order
   Fig. 5 created them (row 0 is always the root).
4. **Degenerate classifiers** (all of their classes sent to one output) are removed bottom-up;
   their single child takes their place (or their output becomes a leaf of the parent). If
   the root is degenerate with no child, the tree has no base classifier (one leaf).
5. **What a base classifier's estimate is about.** Each base classifier solves the problem
   "which of my outputs" on the training samples of its classes; hits/misses (RELIEF), class
   scatter (Fisher) and correctness (CV, validation) are about those outputs (groups of
   classes). ``A_ic`` of Eq. 7 is the estimate averaged over the samples of class ``c``
   (RELIEF, count-based RELIEF, CV) or the node's single value for every class (Fisher, which
   has no per-class form). Count-based RELIEF normalises the hit count of a sample by the
   size of its output group minus one; when every output holds one class this is Eq. 8-9
   exactly. Fisher's J (Eq. 1) uses a pseudo-inverse (a feature constant on the node's
   samples adds nothing instead of failing); J is not bounded by 1 (the paper plugs it in
   unchanged); the scaled variant divides it by ``sqrt(#features)``.
6. **No features.** A base classifier whose feature row is empty predicts its majority output
   (CV and validation then count that); distance measures see all distances 0 (RELIEF 0,
   count-based RELIEF 0), Fisher 0.
7. **N_l** of Eq. 10 is the number of levels of the tree after degenerate classifiers are
   removed (its depth in base classifiers); ``F_t`` the distinct features, ``F_b`` the sum
   over base classifiers.
8. **GA (III-E).** Initial genomes: feature genes 1 with probability ``feature_prob``
   (default 0.5), tree genes uniform in 0..C-1. Steady state: each generation makes
   ``n_replace`` children from parents chosen by binary tournament and they replace the
   ``n_replace`` worst individuals. Crossover picks the feature part or the tree part with
   probability 1/2: the feature part gets a one-point crossover over the flattened feature
   genes and each new feature part is attached to one of the parents' tree parts at random;
   the tree part gets a "one-point swap" -- one tree gene, chosen at random, is exchanged
   between the parents (Fig. 6b is not in the text; this is our reading). Each child is
   mutated with probability ``mutation_rate`` at one point chosen uniformly over the whole
   genome (a feature bit flips; a tree gene takes a different random output).
9. **Best individual.** Highest score; exact ties (scores equal to 12 decimals) go to the
   smaller tree: fewer base classifiers, then smaller ``F_b``, then smaller ``F_t``, then the
   earlier genome -- the paper prefers the compact tree when the score cannot tell.
10. **Data.** Method 1 splits the data given to ``fit`` into training and validation parts
    (``validation_fraction=0.25`` of it, i.e. the paper's 60/20 of the whole set with 20%
    held out for testing), stratified and seeded. The final base classifiers are refitted on
    all the data given to ``fit``. CV uses ``cv=5`` stratified, seeded folds, fixed per fit.
11. **Fewer than 3 classes.** There is no tree to design (C-1 = 1 base classifier): the search
    falls back to flat GA feature selection (logged at WARNING, ``hierarchical_ = False``).
    A class with one sample raises (no hit exists for it; no split keeps it in both parts).

Speed: the fitness of identical (and of equivalent: same tree, same features per node)
genomes is cached, every base classifier's estimate is cached by (class partition, features),
tree layouts are cached by tree genes, and distances are computed for a whole node at once with
numpy (exact for ties: per-feature differences, or the Gram form on 0/1 data).
``benchmarks/bench_ga_tree.py`` compares with a naive per-genome, per-sample evaluation.

Examples
--------
>>> from selection.synthetic.ga import make_ga_dataset
>>> d = make_ga_dataset(2, noise=0.0, n_per_class=20, random_state=0)
>>> clf = GATreeClassifier(population_size=60, n_replace=10, n_generations=10, random_state=0)
>>> clf = clf.fit(d.X, d.y)
>>> clf.tree_.n_base, clf.tree_.used_features()
(1, [0])
"""

from selection.class_hierarchy.ga_tree.classifier import GATreeClassifier
from selection.class_hierarchy.ga_tree.drawing import draw_tree
from selection.class_hierarchy.ga_tree.fitness import SCORINGS
from selection.class_hierarchy.ga_tree.genome import Genome, repair_tree_genes, separation_levels
from selection.class_hierarchy.ga_tree.layout import BaseNode, GATree, build_tree, flat_tree
from selection.class_hierarchy.ga_tree.measures import count_relief, fisher_criterion, penalised_score, relief
from selection.class_hierarchy.ga_tree.search import GAResult, run_ga
from selection.class_hierarchy.ga_tree.selector import GATreeSelector

__all__ = [
    "SCORINGS",
    "Genome",
    "BaseNode",
    "GATree",
    "separation_levels",
    "repair_tree_genes",
    "build_tree",
    "flat_tree",
    "count_relief",
    "relief",
    "fisher_criterion",
    "penalised_score",
    "run_ga",
    "GAResult",
    "GATreeClassifier",
    "GATreeSelector",
    "draw_tree",
]
