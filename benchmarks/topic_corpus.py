"""A generated corpus of forum-like posts in 20 topics, for the text and model-selection
benchmarks.

    from benchmarks.topic_corpus import topic_corpus
    texts, labels = topic_corpus(40_000)

Every post draws about 150 words (log-normal lengths) from a Zipf vocabulary of made-up
words shared by all topics, and a third of them from its topic's own Zipf list of words
(words are shared between a few topics, as "drive" is between hardware and cars). The words
are lower-case Latin letters, with digits in a few, so scikit-learn's default tokens are the
words themselves. Fixed seed: the same arguments give the same corpus.
"""

from __future__ import annotations

import numpy as np

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def _words(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` distinct made-up words of 3 to 9 letters (a few with a digit)."""
    out: set[str] = set()
    while len(out) < n:  # bounded: a few rounds, the words are drawn in bulk
        lengths = rng.integers(3, 10, 2 * n)
        letters = rng.choice(LETTERS, (2 * n, 9))
        for row, k in zip(letters, lengths):  # vocabulary build, once
            word = "".join(row[:k])
            if rng.random() < 0.02:
                word += str(rng.integers(0, 100))
            out.add(word)
            if len(out) == n:
                break
    return np.array(sorted(out))


def topic_corpus(
    n_docs: int = 40_000,
    n_topics: int = 20,
    n_words: int = 60_000,
    topic_words: int = 3_000,
    mean_length: float = 150.0,
    seed: int = 0,
) -> tuple[list[str], np.ndarray]:
    """(texts, labels): ``n_docs`` posts, labels ``"topic00"`` ... , balanced at random."""
    rng = np.random.default_rng(seed)
    vocab = _words(n_words, rng)
    zipf = 1.0 / np.arange(1, n_words + 1) ** 1.05
    zipf /= zipf.sum()
    topic_rank = 1.0 / np.arange(1, topic_words + 1) ** 0.9
    topic_rank /= topic_rank.sum()
    # each topic's words: a random subset of the vocabulary beyond its 200 commonest words
    topics = np.stack(
        [rng.choice(np.arange(200, n_words), topic_words, replace=False) for _ in range(n_topics)]
    )
    y = rng.integers(0, n_topics, n_docs)
    lengths = np.maximum(5, rng.lognormal(np.log(mean_length) - 0.18, 0.6, n_docs).astype(int))
    total = int(lengths.sum())
    doc = np.repeat(np.arange(n_docs), lengths)
    common = rng.choice(n_words, total, p=zipf)
    topical = topics[y[doc], rng.choice(topic_words, total, p=topic_rank)]
    word = np.where(rng.random(total) < 1 / 3, topical, common)
    tokens = vocab[word]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    texts = [" ".join(tokens[bounds[i] : bounds[i + 1]]) for i in range(n_docs)]  # once
    labels = np.array([f"topic{k:02d}" for k in range(n_topics)])[y]
    return texts, labels
