"""Git: the git tachikoma needs.

`gitrun` runs git (its errors; the commit hooks, with no terminal and a time limit); `gitutil` the repository,
commit times and committing tachikoma's change only; `gitstate` whether tachikoma may commit now (not on a
detached HEAD, nor during a merge, cherry-pick, revert, rebase, `git am` or bisect).
"""
