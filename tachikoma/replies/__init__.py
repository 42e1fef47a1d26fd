"""Replies: a search answer as an agent gets it.

`tokens` counts tokens offline, near cl100k and o200k; `budget` chooses the passages that fit a token budget
(pure); `recall` reads each result's turns or paragraphs back and holds the reply, as it is sent, to the budget;
`reply` is the JSON every face sends (an agent's form, floats rounded, compact).
"""
