"""Whose words answer a question about the asker: a transcript passage holding only the agent's turns weighs less.

In a question about the asker ("How many doctors did I visit?", "What did I buy for my sister?") the evidence
is what the asker said in a session ("I saw Dr. Patel about my knee"); the agent's replies around it are
advice and lists that share the question's subject, not its facts. So for such a question a transcript passage
that holds the agent's turns and none of the user's is weighed × `[ranking] agents_words` (0.85), a factor of
its score that its explanation shows (`explain.AGENTS_WORDS`). Notes, and passages with a user turn, are not touched.

A question that counts the time between events ("How many months have passed since I …", "How many days ago
did I …") is not touched either: the agent's replies date what the user told them, and those questions lost
their sessions under the rule (docs/evaluation.md, "The asker's own words (session 46, kept)").
"""

from __future__ import annotations

import re

import numpy as np

#: The asker speaks of themself (English). Other languages are not read: the rule then does nothing.
ABOUT_ASKER = re.compile(r"\b(?:I|me|my|mine|myself|I'(?:m|ve|d|ll))(?=[^\w']|$)", re.I)
#: A question counting the time between events: "how many days ago", "how many months have passed since".
ELAPSED = re.compile(r"\bhow\s+(?:many|long)\s+(?:days|weeks|months|years)\b.*?"
                     r"\b(?:ago|since|passed|before|after|between|until|till)\b", re.I | re.S)
#: A transcript line's turn label as the chunker writes it (`chunking`: "speaker: text"); readers name the
#: user's and the agent's turns "user" and "assistant" ("assistant → subagent …" when it hands work on).
_LABEL = re.compile(r"^(user|assistant)(?: →[^:\n]*)?:", re.M)
#: `chunk_voices` codes: a passage with a user turn, or not from a transcript; one with the agent's turns only.
ANY, AGENT_ONLY = np.int8(0), np.int8(1)


def about_asker(query: str, language: str) -> bool:
    """Whether an English question asks about its asker and is not about the time between events."""
    return not language and bool(ABOUT_ASKER.search(query)) and not ELAPSED.search(query)


def voice_of(text: str) -> np.int8:
    """`AGENT_ONLY` for a transcript passage whose turns are all the agent's, else `ANY`."""
    labels = _LABEL.findall(text)
    return AGENT_ONLY if labels and "user" not in labels else ANY
