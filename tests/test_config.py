from __future__ import annotations

import pytest

from codebot.core.config import Config, load_config
from codebot.core.errors import ConfigError


def test_defaults(tmp_path):
    assert load_config(tmp_path, environ={}) == Config()


def test_precedence_flags_then_environment_then_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.codebot]\nmax_file_bytes = 10\nignore = ['a/']\ninclude-vendor = true\n"
    )
    cfg = load_config(tmp_path, environ={})
    assert (cfg.max_file_bytes, cfg.ignore, cfg.include_vendor) == (10, ("a/",), True)
    env = {"CODEBOT_MAX_FILE_BYTES": "20", "CODEBOT_IGNORE": "b/, c/", "HOME": "/x"}
    cfg = load_config(tmp_path, environ=env)
    assert (cfg.max_file_bytes, cfg.ignore) == (20, ("b/", "c/"))
    cfg = load_config(tmp_path, flags={"max_file_bytes": 30, "ignore": None}, environ=env)
    assert (cfg.max_file_bytes, cfg.ignore) == (30, ("b/", "c/"))


def test_dedicated_file_wins_over_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.codebot]\nmax_file_bytes = 10\n")
    (tmp_path / ".codebot.toml").write_text("max_file_bytes = 99\n")
    assert load_config(tmp_path, environ={}).max_file_bytes == 99


@pytest.mark.parametrize(
    "text,message",
    [
        ("colour = 'red'\n", "unknown setting 'colour'"),
        ("max_file_bytes = 'big'\n", "max_file_bytes must be an integer"),
        ("include_vendor = 3\n", "include_vendor must be true or false"),
        ("max_file_bytes = [\n", "cannot read configuration"),
    ],
)
def test_bad_settings_name_the_key_and_the_file(tmp_path, text, message):
    (tmp_path / ".codebot.toml").write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(tmp_path, environ={})
    assert ".codebot.toml" in str(info.value)


def test_bad_environment_value(tmp_path):
    with pytest.raises(ConfigError, match="environment: include_generated must be true or false"):
        load_config(tmp_path, environ={"CODEBOT_INCLUDE_GENERATED": "maybe"})
