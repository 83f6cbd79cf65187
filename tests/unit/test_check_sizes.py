"""check_sizes: the limits it enforces are found where they are broken, in Python and in TypeScript.

The TypeScript reader is proven on samples of what the code base writes (and of what would fool a
regex: braces in strings, templates, regexes and comments), then on the real tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import check_sizes
from scripts.sizelib.ts_classes import blank, classes


def methods_of(source: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.name, c.methods) for c in classes(source)]


CLASS_SAMPLES = [
    pytest.param(
        """
        export class A {
          private readonly x = new Map<string, number>();
          private y: string | null = null;
          constructor(private readonly io: Io) { this.x.set("a", 1); }
          get isRunning(): boolean { return true; }
          set value(v: number) {}
          static make(): A { return new A(io); }
          async load(): Promise<void> {}
          private *items(): Iterable<number> { yield 1; }
        }""",
        [("A", ("constructor", "isRunning", "value", "make", "load", "items"))],
        id="methods-constructor-getter-setter-static-async-generator",
    ),
    pytest.param(
        """
        class B {
          private readonly host: Host = { busy: () => false, send: (t) => { this.go(t); } };
          private onKey = (e: KeyboardEvent): void => { if (e.key === "}") return; };
          private handler: (x: number) => void = (x) => {};
          private later = async () => {};
          private plain = function () {};
          private short = x => x;
          private notAFunction = (1 + 2) * 3;
          private typed: () => void;
        }""",
        [("B", ("onKey", "handler", "later", "plain", "short"))],
        id="function-valued-properties-count-object-literals-do-not",
    ),
    pytest.param(
        """
        class C {
          a(): string { return "}}} { `"; }
          b(): string { return `x ${this.a({ k: "}" })} }`; }
          c(): RegExp { return /[}{]\\/}/g; }
          // d() { }
          /* e() { } */
          f(): { x: number } { return { x: 1 }; }
          g(a: { b: string }, c = () => {}): void {}
          h(): void;
          h(x?: number): void {}
        }""",
        [("C", ("a", "b", "c", "f", "g", "h", "h"))],
        id="braces-in-strings-templates-regexes-comments-and-types",
    ),
    pytest.param(
        """
        export class Outer<T extends { id: string }> extends Base<T> implements Thing {
          static { register(Outer); }
          ["computed"](): void {}
          #secret(): void {}
          make() { return class Inner { one() {} two() {} }; }
        }
        const className = "class Fake { x() {} }";""",
        [("Outer", ('["computed"]', "#secret", "make")), ("Inner", ("one", "two"))],
        id="generics-static-block-private-names-nested-classes",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CLASS_SAMPLES)
def test_typescript_classes_and_their_methods(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert methods_of(source) == expected


def test_blanking_keeps_lines_and_code() -> None:
    source = 'const a = "x\\"y"; // c\nconst b = `t ${a} u`; /* m\nn */ const r = /a\\/b/;\n'
    out = blank(source)
    assert out.count("\n") == source.count("\n") and len(out) == len(source)
    assert out.split() == ["const", "a", "=", ";", "const", "b", "=", "a", ";", "const", "r", "=", ";"]


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_typescript_class_over_the_limit_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_sizes, "ROOT", tmp_path)
    body = "\n".join(f"  m{n}(): void {{}}" for n in range(check_sizes.MAX_METHODS + 1))
    big = write(tmp_path, "web/src/big.ts", f"export class Big {{\n{body}\n}}\n")
    fine = write(tmp_path, "web/src/fine.ts", "export class Fine {\n  get a() { return 1; }\n}\n")
    problems = check_sizes.big_classes([big, fine])
    assert problems == [f"web/src/big.ts:1: class Big has {check_sizes.MAX_METHODS + 1} methods (at most 20)"]


def test_a_python_class_over_the_limit_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_sizes, "ROOT", tmp_path)
    body = "\n".join(f"    def m{n}(self) -> None: ..." for n in range(check_sizes.MAX_METHODS + 1))
    big = write(tmp_path, "runtime/big.py", f"class Big:\n{body}\n")
    assert check_sizes.big_classes([big]) == ["runtime/big.py:1: class Big has 21 methods (at most 20)"]


def test_a_long_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_sizes, "ROOT", tmp_path)
    long = write(tmp_path, "web/src/long.ts", "x;\n" * (check_sizes.MAX_LINES + 1))
    short = write(tmp_path, "web/src/short.ts", "x;\n" * check_sizes.MAX_LINES)
    assert check_sizes.long_files([long, short]) == [
        f"web/src/long.ts: {check_sizes.MAX_LINES + 1} lines (at most 400); split it by concept"
    ]
