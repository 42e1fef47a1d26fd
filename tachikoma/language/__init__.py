"""Language: how text becomes words and which words carry meaning, in every language.

`segment` cuts text into words in every script (CJK and Thai runs as characters and bigrams, Korean
particles and Japanese runs cut where their words end, umlauts spelled both ways, accents folded) and
tells the script a text is mostly written in; `function_words` holds the words that carry no meaning of
their own in each language read (English and the others) and tells a question's language from them. A new
language's function words, or a new script's segmentation, goes here; nothing here imports the rest of
tachikoma.
"""
