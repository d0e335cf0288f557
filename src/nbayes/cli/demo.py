"""``nbayes demo``: a spam filter in one command, on the SMS Spam Collection shipped inside nbayes.

It trains a text model on a fixed 75/25 split, prints the evaluation on the held-out quarter
and the words that most indicate spam, saves the model, and classifies a few new messages.
Everything it does is also one ``nbayes`` command or a few lines of Python (printed at the end).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..datasets import SMS_SPAM_CITATION, load_sms_spam
from ..estimators import MultinomialNB, TextNB
from ..io import save
from ._common import format_table, plural
from .evaluate import Scores, baseline, format_report

HELP = "train, evaluate and explain a spam filter on the bundled SMS Spam Collection"

EXAMPLES = (
    "Congratulations! You have won a £1000 cash prize. Call 09061701461 now to claim",
    "Are we still on for lunch tomorrow? I can pick you up at 12",
    "URGENT: your mobile number was selected for a FREE holiday. Txt WIN to 80086",
    "Sorry I'm running late, will call you when I get home",
)


def demo(
    output: str = "sms-spam.nbayes",
    *,
    test_size: float = 0.25,
    seed: int = 0,
    k: int = 10,
    examples=EXAMPLES,
) -> dict:
    """Train and evaluate the SMS spam filter; save it to ``output``.

    Returns
    -------
    dict with ``train_rows``, ``test_rows``, ``evaluation`` (as ``nbayes evaluate``),
    ``spam_words`` (word, weight), ``model`` (the saved path) and ``examples`` (text, label,
    probability of spam).
    """
    from sklearn.model_selection import train_test_split

    data = load_sms_spam()
    train, test = train_test_split(
        data, test_size=test_size, random_state=seed, stratify=data["label"]
    )
    model = TextNB(MultinomialNB()).fit(train["text"], train["label"])
    scores = Scores(model.classes_)
    scores.add(test["label"].to_numpy(dtype=object), model.predict_proba(test["text"]))
    evaluation = {
        "model": "TextNB(MultinomialNB)",
        "data": "SMS test split",
        "target": "label",
        **scores.report(),
        **baseline(model, scores),
    }
    spam_words = model.top_features("spam", k=k)
    metadata = {
        "cli": {
            "target": "label",
            "model": "multinomial",
            "features": ["text"],
            "text_column": "text",
            "schema": {"text": "str"},
            "rows": len(train),
            "source": "SMS Spam Collection v.1 (bundled), 75% split",
        }
    }
    path = save(model, output, metadata=metadata)
    spam_index = list(model.classes_).index("spam")
    proba = model.predict_proba(list(examples))[:, spam_index]
    return {
        "train_rows": len(train),
        "test_rows": len(test),
        "evaluation": evaluation,
        "spam_words": list(
            zip(spam_words["feature"].tolist(), spam_words["weight"].astype(float).tolist())
        ),
        "model": str(path),
        "examples": [
            {"text": t, "label": "spam" if p >= 0.5 else "ham", "p_spam": float(p)}
            for t, p in zip(examples, np.asarray(proba))
        ],
    }


def format_demo(result: dict) -> str:
    path = result["model"]
    lines = [
        "nbayes demo: a spam filter on the SMS Spam Collection v.1 (bundled with nbayes)",
        f"  data: {SMS_SPAM_CITATION}",
        f"  model: word counts (CountVectorizer) -> MultinomialNB, trained on "
        f"{plural(result['train_rows'], 'message')}, tested on "
        f"{plural(result['test_rows'], 'held-out message')}",
        "",
        format_report(result["evaluation"]),
        "",
        "words that most indicate spam (log-odds weight per occurrence):",
        "  " + ", ".join(f"{w} ({v:.2f})" for w, v in result["spam_words"]),
        "",
        f"model saved to {path}; classifying new messages:",
        format_table(
            [[e["label"], f"{e['p_spam']:.3f}", e["text"]] for e in result["examples"]],
            ["label", "P(spam)", "message"],
            "lrl",
        ),
        "",
        "next steps:",
        f"  nbayes inspect {path}",
        f"  nbayes explain {path}",
        f"  nbayes predict {path} messages.csv --proba    # a CSV with a 'text' column",
        "  nbayes train data.csv --target label -o model.nbayes   # your own data",
    ]
    return "\n".join(lines)


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("demo", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument(
        "-o",
        "--output",
        default="sms-spam.nbayes",
        metavar="MODEL",
        help="where to save the model (default: sms-spam.nbayes); an existing file is "
        "replaced once the model is complete, a named pipe or device is written into",
    )
    p.add_argument(
        "-k", "--top", type=int, default=10, metavar="K", help="spam words to show (default 10)"
    )
    return p


def run(args) -> int:
    result = demo(args.output, k=args.top)
    print(format_demo(result))
    return 0


__all__ = ["EXAMPLES", "Path", "demo"]
