"""tachikoma.toml: every key is checked for type and range, with a one-line error naming the file and key."""

import pytest

from tachikoma.config import Config, load_config
from tachikoma.errors import TachikomaError


def load(tmp_path, text):
    (tmp_path / "tachikoma.toml").write_text(text)
    return load_config(tmp_path)


@pytest.mark.parametrize("text, key", [
    ('embedder = "hash"\n', "embedder must be a table"),
    ("index = 5\n", "index must be a table"),
    ("ranking = [1, 2]\n", "ranking must be a table"),
    ('search = "rrf"\n', "search must be a table"),
    ("[ranking]\ntrust = 5\n", "ranking.trust must be a table"),
    ('[ranking]\nconfidence = "high"\n', "ranking.confidence must be a table"),
    ("[ranking]\nhalf_life_days = nan\n", "ranking.half_life_days must be a finite number"),
    ("[ranking]\nhalf_life_days = inf\n", "ranking.half_life_days must be a finite number"),
    ("[ranking]\nhalf_life_days = 0\n", "ranking.half_life_days must be a number > 0"),
    ('[ranking]\nhalf_life_days = "30"\n', "ranking.half_life_days must be a finite number"),
    ("[ranking]\nhalf_life_days = true\n", "ranking.half_life_days must be a finite number"),
    ("[ranking]\nper_file = 1.5\n", "ranking.per_file must be a whole number ≥ 1"),
    ("[ranking]\nper_file = true\n", "ranking.per_file must be a whole number ≥ 1"),
    ("[ranking]\nrepeat_penalty = nan\n", "ranking.repeat_penalty must be a finite number"),
    ("[ranking]\nrepeat_penalty = 2\n", "ranking.repeat_penalty must be a number between 0 and 1"),
    ("[ranking]\nagents_words = 1.5\n", "ranking.agents_words must be a number between 0 and 1"),
    ('[ranking]\nagents_words = "less"\n', "ranking.agents_words must be a finite number"),
    ("[ranking.trust]\nowner = true\n", "ranking.trust.owner must be a number between 0 and 1"),
    ("[ranking.confidence]\nhigh = nan\n", "ranking.confidence.high must be a number between 0 and 1"),
    ("[ranking]\nhalf_life = 3\n", "unknown key ranking.half_life"),
    ("[index]\nmax_file_bytes = -1\n", "index.max_file_bytes must be a whole number ≥ 1"),
    ("[index]\nmax_file_bytes = 0\n", "index.max_file_bytes must be a whole number ≥ 1"),
    ('[index]\nmax_file_bytes = "5MB"\n', "index.max_file_bytes must be a whole number ≥ 1"),
    ("[index]\nmax_bytes = 5\n", "unknown key index.max_bytes; known: exclude, max_file_bytes"),
    ('[index]\nexclude = "Templates/"\n',
     'index.exclude must be an array of path patterns such as ["Templates/", "Archive/**"], not a string'),
    ('[index]\nexclude = ["Templates/", 3]\n', 'index.exclude[1] must be a path pattern such as "Templates/", '
                                              'not the integer 3'),
    ('[index]\nexclude = ["  "]\n', 'index.exclude[0] must be a path pattern such as "Templates/", not an empty string'),
    ('[index]\nexclude = ["[z-a]*.md"]\n', "index.exclude: '[z-a]*.md' is not a glob tachikoma can read"),
    ('[index]\nexclude = ["../notes/"]\n', "index.exclude: '../notes/' points outside the memory folder"),
    ('[index]\nexclude = ["./"]\n', "index.exclude: './' is the whole memory folder"),
    ('[embedder]\nmodel = "hash"\n', "unknown key embedder.model; known: multilingual, name"),
    ('[embedder]\nmultilingual = "yes"\n', 'embedder.multilingual must be true, false, "auto", "passages" or "all"'),
    ("[embedder]\nname = 5\n", "embedder.name must be a string"),
    ('[embedder]\nname = "bert"\n', "embedder.name: unknown embedder 'bert'"),
    ("[search]\nrrf_k = nan\n", "search.rrf_k must be a number ≥ 0"),
    ("[search]\nrrf_k = inf\n", "search.rrf_k must be a number ≥ 0"),
    ("[search]\nkeyword_weight = nan\n", "search.keyword_weight must be a number between 0 and 1"),
    ('[search]\nfusion = "max"\n', "search.fusion must be one of convex, rrf"),
])
def test_wrong_shape_or_range_is_a_one_line_error_naming_file_and_key(tmp_path, text, key):
    with pytest.raises(TachikomaError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'tachikoma.toml'}: ") and key in message
    assert "\n" not in message


def test_every_key_set_to_a_valid_value(tmp_path):
    config = load(tmp_path, "[ranking]\nhalf_life_days = 7\nper_file = 3\nrepeat_penalty = 1\n"
                            "[ranking.trust]\nowner = 1\n[ranking.confidence]\nlow = 0\n"
                            '[search]\nkeyword_weight = 0\nfusion = "rrf"\nkeyword_candidates = 10\nrrf_k = 0\n'
                            '[embedder]\nname = "hash:64"\n[index]\nmax_file_bytes = 1000\n')
    assert config.ranking.half_life_days == 7.0 and isinstance(config.ranking.half_life_days, float)
    assert config.ranking.per_file == 3 and config.ranking.repeat_penalty == 1.0
    assert config.ranking.trust["owner"] == 1.0 and config.ranking.confidence["low"] == 0.0
    assert config.search.fusion == "rrf" and config.search.rrf_k == 0.0
    assert config.embedder == "hash:64" and config.max_file_bytes == 1000


def test_missing_file_means_defaults_and_auto_embedder_is_fine(tmp_path):
    assert load_config(tmp_path) == Config()
    assert load(tmp_path, '[embedder]\nname = "auto"\n').embedder == "auto"


def test_config_path_that_is_a_folder_is_a_one_line_error(tmp_path):
    with pytest.raises(TachikomaError, match="cannot read"):
        load_config(tmp_path, tmp_path)


def test_an_unknown_section_is_named_in_words(tmp_path):
    (tmp_path / "tachikoma.toml").write_text("[rankng]\nx = 1\n")
    with pytest.raises(TachikomaError, match=r"unknown section rankng; known: "):
        load_config(tmp_path)
    (tmp_path / "tachikoma.toml").write_text("[a]\n[b]\n")
    with pytest.raises(TachikomaError, match=r"unknown sections a, b; known: "):
        load_config(tmp_path)


def test_the_command_line_offers_the_recency_presets_there_are():
    """The parser's names (`vocabulary`, imported before anything heavy) are the presets' own."""
    from tachikoma.config import RECENCY_PRESETS
    from tachikoma.vocabulary import RECENCY_NAMES

    assert tuple(RECENCY_PRESETS) == RECENCY_NAMES
