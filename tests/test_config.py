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


# --- trust: a repository's files never choose a secret, where it goes, or a path outside ------


@pytest.mark.parametrize(
    "line",
    [
        'embed_api_key_env = "GITHUB_TOKEN"',
        'rerank_api_key_env = "GITHUB_TOKEN"',
        'chat_api_key_env = "GITHUB_TOKEN"',
        'chat_url = "http://127.0.0.1:9/v1"',
        'github_api_url = "http://127.0.0.1:9"',
        'index_dir = "/tmp/elsewhere"',
        "allow_download = true",
        'embedder = "openai-compatible:http://127.0.0.1:9/v1#m"',
        'embedder = "voyage:voyage-code-3"',
        'reranker = "cohere-compatible:http://127.0.0.1:9/v1/rerank#m"',
    ],
)
def test_repository_files_may_not_choose_secrets_hosts_or_outside_paths(tmp_path, line):
    key = line.split()[0]
    (tmp_path / ".codebot.toml").write_text(line + "\n")
    with pytest.raises(ConfigError, match=key) as info:
        load_config(tmp_path, environ={"HOME": str(tmp_path / "home")})
    assert ".codebot.toml" in str(info.value) and "CODEBOT_" in str(info.value)
    (tmp_path / ".codebot.toml").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.codebot]\n" + line + "\n")
    with pytest.raises(ConfigError, match="pyproject.toml"):
        load_config(tmp_path, environ={"HOME": str(tmp_path / "home")})


def test_the_user_chooses_them_in_the_environment_or_the_user_file(tmp_path):
    home = tmp_path / "home"
    user_file = home / ".config" / "codebot" / "config.toml"
    user_file.parent.mkdir(parents=True)
    user_file.write_text('embedder = "voyage:voyage-code-3"\nchunk_max_lines = 40\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".codebot.toml").write_text("chunk_max_lines = 50\n")
    cfg = load_config(repo, environ={"HOME": str(home), "CODEBOT_CHAT_URL": "http://h/v1"})
    # The repository's file wins over the user's defaults for ordinary settings.
    assert (cfg.embedder, cfg.chunk_max_lines, cfg.chat_url) == (
        "voyage:voyage-code-3",
        50,
        "http://h/v1",
    )
    xdg = tmp_path / "xdg"
    (xdg / "codebot").mkdir(parents=True)
    (xdg / "codebot" / "config.toml").write_text('github_api_url = "https://ghe.example/api/v3"\n')
    cfg = load_config(repo, environ={"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)})
    assert cfg.github_api_url == "https://ghe.example/api/v3"


def test_a_relative_index_dir_is_resolved_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, environ={"HOME": str(tmp_path), "CODEBOT_INDEX_DIR": "idx"})
    assert cfg.index_dir == str(tmp_path / "idx")


# --- every value checked for type and range, with the key and the file named ------------------


@pytest.mark.parametrize(
    "text,message",
    [
        ("chunk_max_chars = 0\n", "chunk_max_chars must be between"),
        ("chunk_max_lines = -1\n", "chunk_max_lines must be between"),
        ("artifact_keep = 0\n", "artifact_keep must be between"),
        ("max_file_bytes = 0\n", "max_file_bytes must be between"),
        ("embed_batch_size = 0\n", "embed_batch_size must be between"),
        ('on_download_failure = "retry"\n', "on_download_failure must be one of"),
        ('artifact_release = "../x"\n', "artifact_release must be a tag name"),
        ("ignore = ['[z-a]']\n", "ignore pattern"),
        ("ignore = ['a\\']\n", "ignore pattern"),
        ("a = " + "[" * 2000 + "]" * 2000 + "\n", "cannot read configuration"),
        ("ignore = 'a/'\nmax_file_bytes = 1.5\n", "max_file_bytes must be an integer"),
    ],
)
def test_bad_values_are_refused_at_load(tmp_path, text, message):
    (tmp_path / ".codebot.toml").write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(tmp_path, environ={})
    assert ".codebot.toml" in str(info.value)


def test_pyproject_with_odd_tool_tables(tmp_path):
    (tmp_path / "pyproject.toml").write_text("tool = 5\n")
    assert load_config(tmp_path, environ={}) == Config()  # not codebot's business
    (tmp_path / "pyproject.toml").write_text("[tool]\ncodebot = 5\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.codebot\]: settings must be"):
        load_config(tmp_path, environ={})


@pytest.mark.parametrize("value", ["²", "1e3", "12abc", "99999999999999999999999", "4\x00"])
def test_garbage_in_the_environment_is_a_clear_error(tmp_path, value):
    with pytest.raises(ConfigError, match="environment: embed_threads"):
        load_config(tmp_path, environ={"CODEBOT_EMBED_THREADS": value})
