from codebot.core.model import Import

SOURCE = """
--- Picker helpers.
local M = {}
local utils = require("finder.utils")
local log = require "plenary.log"
require("finder.setup")

local DEFAULTS = { width = 0.8 }

--- Open a picker.
---@param opts table
function M.open(opts, ...)
  return utils.merge(DEFAULTS, opts)
end

function M:close(force)
  self:reset(force)
end

local function clamp(n, lo, hi)
  return math.max(lo, math.min(hi, n))
end

-- Sets the module up.
M.setup = function(cfg)
  clamp(cfg.width, 0, 1)
end

local on_key = function(key) log.info(key) end

function global_helper() end

M.config = { sorted = true }

return M
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("lua", "lua/finder/picker.lua", SOURCE)
    m = "lua.finder.picker"
    assert p.ids == [
        f"{m}.M",
        f"{m}.DEFAULTS",
        f"{m}.M.open",
        f"{m}.M.close",
        f"{m}.clamp",
        f"{m}.M.setup",
        f"{m}.on_key",
        f"{m}.global_helper",
        f"{m}.M.config",
    ]
    assert p[f"{m}.M.open"].kind == "method"
    assert p[f"{m}.M.open"].class_name == "M"
    assert (p[f"{m}.M.open"].start_line, p[f"{m}.M.open"].end_line) == (11, 13)
    assert p[f"{m}.clamp"].kind == "function"
    assert p[f"{m}.DEFAULTS"].kind == "constant"
    assert p[f"{m}.M.config"].kind == "variable"
    # `local on_key = function` spans its declaration, `local` included
    assert p[f"{m}.on_key"].signature == "local on_key = function(key)"
    assert p[f"{m}.M.setup"].signature == "M.setup = function(cfg)"


def test_parameters_and_docstrings(parse):
    p = parse("lua", "lua/finder/picker.lua", SOURCE)
    m = "lua.finder.picker"
    assert [x.name for x in p[f"{m}.M.open"].parameters] == ["opts", "..."]
    assert [x.name for x in p[f"{m}.M.close"].parameters] == ["self", "force"]
    assert p[f"{m}.M.open"].docstring == "Open a picker.\n@param opts table"
    assert p[f"{m}.M.setup"].docstring == "Sets the module up."
    assert p[f"{m}.clamp"].docstring is None


def test_calls_and_imports(parse):
    p = parse("lua", "lua/finder/picker.lua", SOURCE)
    m = "lua.finder.picker"
    assert p.calls(f"{m}.M.open") == ["utils.merge"]
    assert p.calls(f"{m}.M.close") == ["self:reset"]
    assert p.calls(f"{m}.clamp") == ["math.max", "math.min"]
    assert p.calls(f"{m}.on_key") == ["log.info"]
    assert p.imports == [
        Import("finder.utils", alias="utils", line=3),
        Import("plenary.log", alias="log", line=4),
        Import("finder.setup", line=5),
    ]


def test_calls_resolve_through_tables_require_and_self(resolved):
    edges = resolved(
        "lua",
        {
            "lua/finder/utils.lua": """
            local utils = {}
            function utils.merge(a, b) return vim.tbl_extend("force", a, b) end
            return utils
            """,
            "lua/finder/actions/init.lua": """
            local A = {}
            A.quit = function(bufnr) end
            return A
            """,
            "lua/finder/picker.lua": """
            local M = {}
            local utils = require("finder.utils")
            function M.open(opts)
              local o = utils.merge({}, opts)
              M.render(o)
              require("finder.actions").quit(0)
              shared_global()
            end
            function M.render(o) end
            function M:close() self:render() end
            local function helper() M.open({}) end
            return M
            """,
            "lua/finder/globals.lua": "function shared_global() end\n",
        },
    )
    p = "lua.finder.picker"
    assert edges == {
        (f"{p}.M.open", "lua.finder.utils.utils.merge"): "exact",
        (f"{p}.M.open", f"{p}.M.render"): "exact",
        (f"{p}.M.open", "lua.finder.actions.init.A.quit"): "exact",
        (f"{p}.M.open", "lua.finder.globals.shared_global"): "unique_name",
        (f"{p}.M.close", f"{p}.M.render"): "exact",
        (f"{p}.helper", f"{p}.M.open"): "exact",
    }


def test_a_dot_call_on_an_unknown_value_is_no_guess_at_a_module_function(resolved):
    """telescope: ``matcher.highlighter(...)`` calls a function a sorter stores in a field, not
    ``utils.highlighter`` of another module; ``picker:refresh()`` may be the one ``:`` method."""
    edges = resolved(
        "lua",
        {
            "lua/t/previewers/utils.lua": """
            local utils = {}
            utils.highlighter = function(bufnr, ft) end
            return utils
            """,
            "lua/t/picker.lua": """
            local Picker = {}
            function Picker:refresh() end
            return Picker
            """,
            "lua/t/spec.lua": """
            local function check(matcher, picker)
              matcher.highlighter(nil, "p")
              picker:refresh()
            end
            """,
        },
    )
    assert edges == {("lua.t.spec.check", "lua.t.picker.Picker.refresh"): "unique_name"}
