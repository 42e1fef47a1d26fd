"""When: the time a question asks about, and the days a passage names.

Pure date reading, below the search: `timeq` reads a question's time ("last week", "letzte Woche",
"先週"), with `time_words` and `foreign_time` (other languages), `periods`, `timespan`, `ahead`,
`tense` and `timewindow`; `mentions` reads the days a passage names. Nothing here reads the index.
"""
