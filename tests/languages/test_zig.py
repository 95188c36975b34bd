"""Zig: functions, methods of containers, ``const X = struct/enum/union``, ``///`` docs, calls,
``@import``. Snippets from zig-clap (clap/args.zig, clap/parsers.zig, clap.zig)."""

import textwrap

from codebot.core.model import Import, Parameter
from codebot.index.build import indexed_code

ARGS = """
/// An example of what methods should be implemented on an arg iterator.
pub const ExampleArgIterator = struct {
    pub fn next(iter: *ExampleArgIterator) ?[]const u8 {
        _ = iter;
        return "2";
    }
};

/// An argument iterator which iterates over a slice of arguments.
/// This implementation does not allocate.
pub const SliceIterator = struct {
    args: []const []const u8,
    index: usize = 0,

    /// The next argument, or null past the last.
    pub fn next(iter: *SliceIterator) ?[]const u8 {
        if (iter.args.len <= iter.index)
            return null;

        defer iter.index += 1;
        return iter.args[iter.index];
    }
};

test "SliceIterator" {
    const args = [_][]const u8{ "A", "BB", "CCC" };
    var iter = SliceIterator{ .args = &args };

    for (args) |a|
        try std.testing.expectEqualStrings(a, iter.next().?);
}

const std = @import("std");
"""

PARSERS = """
/// A parser that does nothing.
pub fn string(in: []const u8) error{}![]const u8 {
    return in;
}

/// A parser that uses `std.fmt.parseInt` or `std.fmt.parseUnsigned` to parse the string into an integer value.
pub fn int(comptime T: type, comptime base: u8) fn ([]const u8) std.fmt.ParseIntError!T {
    return struct {
        fn parse(in: []const u8) std.fmt.ParseIntError!T {
            return switch (@typeInfo(T).int.signedness) {
                .signed => std.fmt.parseInt(T, in, base),
                .unsigned => std.fmt.parseUnsigned(T, in, base),
            };
        }
    }.parse;
}

pub const Values = enum {
    none,
    one,
    many,
};

const MultiArgKind = enum { slice, list };

pub const args = @import("clap/args.zig");
const std = @import("std");
"""


def test_containers_and_their_methods(parse):
    p = parse("zig", "clap/args.zig", ARGS)
    m = "clap.args"
    assert p.ids == [
        f"{m}.ExampleArgIterator",
        f"{m}.ExampleArgIterator.next",
        f"{m}.SliceIterator",
        f"{m}.SliceIterator.next",
    ]
    it = p[f"{m}.SliceIterator"]
    assert (it.kind, it.signature) == ("struct", "const SliceIterator = struct {")
    assert it.docstring == (
        "An argument iterator which iterates over a slice of arguments.\n"
        "This implementation does not allocate."
    )
    # `pub` and the `///` lines before a declaration are its own: its lines start there.
    assert (it.start_line, it.end_line) == (9, 23)
    nxt = p[f"{m}.SliceIterator.next"]
    assert (nxt.kind, nxt.class_name, nxt.parent) == ("method", "SliceIterator", it.id)
    assert nxt.signature == "fn next(iter: *SliceIterator) ?[]const u8"
    assert nxt.parameters == (Parameter("iter", "*SliceIterator"),)
    assert nxt.return_type == "?[]const u8"
    assert nxt.docstring == "The next argument, or null past the last."
    assert (nxt.start_line, nxt.end_line) == (15, 22)
    assert p.imports == [Import("std", None, "std", line=33)]


def test_a_containers_outline_shows_its_fields_and_method_lines(parse):
    p = parse("zig", "clap/args.zig", ARGS)
    data = textwrap.dedent(ARGS).lstrip("\n").encode()
    texts = dict(zip([s.id for s in p.result.symbols], indexed_code(p.result, data)))
    assert texts["clap.args.SliceIterator"].splitlines() == [
        "/// An argument iterator which iterates over a slice of arguments.",
        "/// This implementation does not allocate.",
        "pub const SliceIterator = struct {",
        "    args: []const []const u8,",
        "    index: usize = 0,",
        "",
        "    pub fn next(iter: *SliceIterator) ?[]const u8 {",
        "};",
    ]


def test_functions_enums_calls_imports(parse):
    p = parse("zig", "clap/parsers.zig", PARSERS)
    m = "clap.parsers"
    assert p.ids == [
        f"{m}.string",
        f"{m}.int",
        f"{m}.int.parse",
        f"{m}.Values",
        f"{m}.MultiArgKind",
    ]
    assert p[f"{m}.string"].kind == "function"
    assert p[f"{m}.string"].return_type == "error{}![]const u8"
    assert p[f"{m}.int"].parameters == (
        Parameter("comptime T", "type"),
        Parameter("comptime base", "u8"),
    )
    assert p[f"{m}.int"].docstring.startswith("A parser that uses `std.fmt.parseInt`")
    assert p[f"{m}.Values"].kind == "enum"
    assert p[f"{m}.MultiArgKind"].signature == "const MultiArgKind = enum { slice, list };"
    # Calls keep their receivers: `std.fmt.parseInt`, not `parseInt`.
    assert p.calls(f"{m}.int.parse") == ["std.fmt.parseInt", "std.fmt.parseUnsigned"]
    assert p.imports == [
        Import("clap/args.zig", None, "args", line=26),
        Import("std", None, "std", line=27),
    ]


def test_calls_resolve_through_files_aliases_and_typed_receivers(resolved):
    """zls's shapes: a file that is a struct (``const Analyser = @This()``), ``@import`` of a
    file, ``std`` aliases, parameters, locals and fields of known types, decl literals."""
    edges = resolved(
        "zig",
        {
            "src/offsets.zig": """
            const std = @import("std");
            pub fn tokenToLoc(tree: u8, token: u32) Loc {
                return .{ .start = tree + token };
            }
            pub const Loc = struct {
                start: usize,
                pub fn init(start: usize) Loc { return .{ .start = start }; }
                pub fn len(loc: Loc) usize { return loc.start; }
            };
            """,
            "src/analysis.zig": """
            const std = @import("std");
            const Allocator = std.mem.Allocator;
            const offsets = @import("offsets.zig");
            const Loc = offsets.Loc;
            const Analyser = @This();

            arena: Allocator,
            states: std.ArrayList(u8),

            pub fn init(arena: Allocator) Analyser {
                return .{ .arena = arena, .states = .initCapacity(arena, 4) };
            }
            pub fn resolve(analyser: *Analyser, tree: u8) !usize {
                const loc = offsets.tokenToLoc(tree, 0);
                var start: Loc = .init(3);
                analyser.arena.free(start);
                try analyser.check(loc.len());
                std.debug.print("{}", .{start.len()});
                return helper(loc);
            }
            fn check(self: *Analyser, n: usize) !void {
                self.arena.free(n);
                self.check(n - 1);
            }
            fn helper(loc: Loc) usize { return loc.len(); }
            """,
        },
    )
    a, o = "src.analysis", "src.offsets"
    assert edges == {
        (f"{a}.resolve", f"{o}.tokenToLoc"): "exact",  # through the file's alias
        (f"{a}.resolve", f"{o}.Loc.init"): "exact",  # `.init` of the declared type
        (f"{a}.resolve", f"{a}.check"): "exact",  # a parameter of the file's own type
        (f"{a}.resolve", f"{o}.Loc.len"): "exact",  # a local of a returned type
        (f"{a}.resolve", f"{a}.helper"): "exact",
        (f"{a}.check", f"{a}.check"): "exact",
        (f"{a}.helper", f"{o}.Loc.len"): "exact",
    }
    # `.initCapacity` of a field (a std.ArrayList) and `arena.free` (a std Allocator) make no
    # edge: not `Analyser.init`, not a unique-name guess.
    assert not any(src == f"{a}.init" for src, _ in edges)
