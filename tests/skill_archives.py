"""Skill archives with the layouts real ones have, built in the tests (nothing is read from outside the repository).

What real archives taught us, kept here as facts (from the public anthropics/skills repository, packed the ways
people download them):

- A single skill is zipped with its folder at the top (``brand-guidelines/SKILL.md``), folder entries included,
  Unix modes ``0o40775`` / ``0o100664`` (made on Linux, ``create_system`` 3), deflated.
- Every skill carries a ``LICENSE.txt`` (about 11 KB) beside ``SKILL.md``, and its frontmatter says
  ``license: Complete terms in LICENSE.txt``; some skills in a repository have no licence line and no file.
- Descriptions are long single lines with apostrophes, parentheses and commas, never quoted.
- Bodies start with a blank line or a heading right after the closing ``---``.
- A skill with resources keeps them in sub-folders (``examples/*.md``, ``themes/*.md``, ``references/``) and
  may carry a binary asset (a PDF showcase) — a ``.tar.gz`` made with GNU tar, folder entries first.
- A whole repository downloaded from GitHub is one zip whose top folder is ``<repo>-main/``; skills sit under
  ``skills/<name>/``, beside folders that are not skills (``spec/`` with a Markdown pointer) and top files.
"""

from __future__ import annotations

import io
import random
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

LICENSE_LINE = "license: Complete terms in LICENSE.txt\n"

BRAND_DESCRIPTION = (
    "Applies Anthropic's official brand colors and typography to any sort of artifact that may benefit from "
    "having Anthropic's look-and-feel. Use it when brand colors or style guidelines, visual formatting, or "
    "company design standards apply."
)
# A sentence of brand-guidelines' body that is not in its description: the model sees it only once loaded.
BRAND_BODY = "To access Anthropic's official brand identity and style resources"

COMMS_DESCRIPTION = (
    "A set of resources to help me write all kinds of internal communications, using the formats that my company "
    "likes to use. Claude should use this skill whenever asked to write some sort of internal communications "
    "(status reports, leadership updates, 3P updates, company newsletters, FAQs, incident reports, project "
    "updates, etc.)."
)
COMMS_EXAMPLES = ("3p-updates.md", "company-newsletter.md", "faq-answers.md", "general-comms.md")

THEME_DESCRIPTION = (
    "Toolkit for styling artifacts with a theme. These artifacts can be slides, docs, reportings, HTML landing "
    "pages, etc. There are 10 pre-set themes with colors/fonts that you can apply to any artifact that has been "
    "creating, or can generate a new theme on-the-fly."
)
THEMES = ("arctic-frost", "botanical-garden", "desert-rose", "forest-canopy", "ocean-depths")

FRONTEND_DESCRIPTION = (
    "Guidance for distinctive, intentional visual design when building new UI or reshaping an existing one. "
    "Helps with aesthetic direction, typography, and making choices that don't read as templated defaults."
)
DOC_DESCRIPTION = (
    "Guide users through a structured workflow for co-authoring documentation. Use when user wants to write "
    "documentation, proposals, technical specs, decision docs, or similar structured content."
)

# The skills of the repository archive, in the order its zip lists them (the importer keeps that order).
REPO_SKILLS = ("internal-comms", "brand-guidelines", "frontend-design", "doc-coauthoring")


@dataclass(frozen=True)
class Archive:
    """A built archive: its file name (the importer reads the type from it) and its bytes."""

    filename: str
    data: bytes

    def write(self, folder: Path) -> Path:
        path = folder / self.filename
        path.write_bytes(self.data)
        return path


def skill_md(name: str, description: str, body: str, *, license_line: bool = True) -> bytes:
    front = f"---\nname: {name}\ndescription: {description}\n{LICENSE_LINE if license_line else ''}---\n"
    return (front + body).encode()


def license_text() -> bytes:
    """A stand-in for the Apache-2.0 text every real skill carries: about 11 KB of plain prose."""
    head = "\n                                 Apache License\n                           Version 2.0, January 2004\n"
    para = "   Terms and conditions for use, reproduction, and distribution of the skill in this folder.\n"
    return (head + para * 120).encode()


def pdf_asset(size: int = 16_384) -> bytes:
    """A binary showcase document: a PDF header, then bytes that do not compress (seeded, the same every run)."""
    rng = random.Random("theme-showcase")
    return b"%PDF-1.4\n%\x93\x8c\x8b\x9e ReportLab Generated PDF document\n" + rng.randbytes(size)


def _brand_files(prefix: str) -> dict[str, bytes]:
    body = (
        f"\n# Anthropic Brand Styling\n\n## Overview\n\n{BRAND_BODY}, use this skill.\n\n"
        "## Colors\n\n- Dark: `#141413`\n"
    )
    return {
        f"{prefix}SKILL.md": skill_md("brand-guidelines", BRAND_DESCRIPTION, body),
        f"{prefix}LICENSE.txt": license_text(),
    }


def _comms_files(prefix: str) -> dict[str, bytes]:
    files = {
        f"{prefix}SKILL.md": skill_md(
            "internal-comms", COMMS_DESCRIPTION, "\n## When to use this skill\nTo write internal communications.\n"
        ),
    }
    for example in COMMS_EXAMPLES:
        files[f"{prefix}examples/{example}"] = f"# {example[:-3]}\n\nHow we write these.\n".encode()
    files[f"{prefix}LICENSE.txt"] = license_text()
    return files


def _zip(files: dict[str, bytes], *, dir_mode: int = 0o40775, file_mode: int = 0o100664) -> bytes:
    """A zip as GitHub and Linux `zip` make them: a folder entry before the files inside it."""
    buf = io.BytesIO()
    seen: set[str] = set()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            parts = name.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folder = "/".join(parts[:depth]) + "/"
                if folder not in seen:
                    seen.add(folder)
                    info = zipfile.ZipInfo(folder)
                    info.create_system, info.external_attr = 3, dir_mode << 16
                    zf.writestr(info, b"")
            info = zipfile.ZipInfo(name)
            info.create_system, info.external_attr = 3, file_mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buf.getvalue()


def brand_guidelines_zip() -> Archive:
    """The smallest real shape: one skill folder at the top of a zip, SKILL.md and LICENSE.txt."""
    return Archive("brand-guidelines.zip", _zip(_brand_files("brand-guidelines/")))


def internal_comms_zip() -> Archive:
    """One skill with a folder of examples."""
    return Archive("internal-comms.zip", _zip(_comms_files("internal-comms/")))


def theme_factory_files() -> dict[str, bytes]:
    """The files of the theme-factory tarball (paths inside the skill folder)."""
    files = {
        "theme-showcase.pdf": pdf_asset(),
        "SKILL.md": skill_md(
            "theme-factory", THEME_DESCRIPTION, "\n\n# Theme Factory Skill\n\nPick a theme from `themes/`.\n"
        ),
    }
    for theme in THEMES:
        files[f"themes/{theme}.md"] = f"# {theme.replace('-', ' ').title()}\n\n## Color Palette\n".encode()
    files["references/fonts.md"] = b"# Fonts\n\nPairings that work.\n"
    files["examples/slide-deck.md"] = b"# A slide deck in Ocean Depths\n"
    files["LICENSE.txt"] = license_text()
    return files


def theme_factory_tgz() -> Archive:
    """A skill with `themes/`, `references/`, `examples/` and a binary PDF, as GNU tar packs it (gzip)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tf:
        inner = {p.rsplit("/", 1)[0] for p in theme_factory_files() if "/" in p}
        folders = {"theme-factory/"} | {f"theme-factory/{folder}/" for folder in inner}
        for folder in sorted(folders, key=len):
            info = tarfile.TarInfo(folder.rstrip("/"))
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o775, 1_782_929_460
            tf.addfile(info)
        for path, data in theme_factory_files().items():
            info = tarfile.TarInfo(f"theme-factory/{path}")
            info.size, info.mode, info.mtime = len(data), 0o664, 1_782_929_460
            tf.addfile(info, io.BytesIO(data))
    return Archive("theme-factory.tar.gz", buf.getvalue())


def repository_zip(repo: str = "anthropic-skills") -> Archive:
    """A whole repository downloaded as a zip: `<repo>-main/skills/<name>/` for four skills (one without a
    licence), plus what is not a skill: a top README, `spec/` and a `template/` folder without SKILL.md."""
    top = f"{repo}-main/"
    files = {f"{top}README.md": b"# Skills\n\nA collection of skills.\n"}
    files |= _comms_files(f"{top}skills/internal-comms/")
    files |= _brand_files(f"{top}skills/brand-guidelines/")
    files[f"{top}skills/frontend-design/SKILL.md"] = skill_md(
        "frontend-design", FRONTEND_DESCRIPTION, "\n# Frontend design\n\nCommit to a direction.\n"
    )
    files[f"{top}skills/frontend-design/LICENSE.txt"] = license_text()
    files[f"{top}skills/doc-coauthoring/SKILL.md"] = skill_md(
        "doc-coauthoring", DOC_DESCRIPTION, "\n# Doc Co-Authoring Workflow\n\nThree stages.\n", license_line=False
    )
    files[f"{top}spec/agent-skills-spec.md"] = b"# Agent Skills Spec\n\nThe spec is now located elsewhere.\n"
    files[f"{top}template/README.md"] = b"Copy this folder to start a skill.\n"
    return Archive(f"{repo}-main.zip", _zip(files, dir_mode=0o40755, file_mode=0o100644))


def large_skill_zip(name: str = "big-assets", assets: int = 3, asset_bytes: int = 7 * 1024 * 1024) -> Archive:
    """A valid skill whose archive is larger than one protocol frame: ``assets`` binary files that do not
    compress (each under the importer's 10 MiB per-file limit)."""
    files = {f"{name}/SKILL.md": skill_md(name, "Ships large binary assets.", "\n# Big assets\nUse the files.\n")}
    for i in range(assets):
        files[f"{name}/assets/showcase-{i}.pdf"] = pdf_asset(asset_bytes)[: asset_bytes - 1] + bytes([i])
    return Archive(f"{name}.zip", _zip(files))


def all_archives() -> dict[str, Archive]:
    """Every real-shaped archive, by file name."""
    archives = (brand_guidelines_zip(), internal_comms_zip(), theme_factory_tgz(), repository_zip())
    return {a.filename: a for a in archives}


ARCHIVES = all_archives()


# Skills as people write them for Claude Code and other agents: valid YAML beyond the spec's simple fields.
HOOKS_SKILL_MD = b"""---
name: safe-deploy
description: Deploys the site. Use this when: the user asks to ship (see docs/deploy.md) and it's approved.
allowed-tools: Bash(git status:*) read_file, run_python
metadata: {author: ops-team, version: "1.0"}
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "./scripts/check.sh"
---

# Safe deploy

Check, then ship.
"""
LOOSE_NAME_SKILL_MD = b"""---
name: PDF Tools
description: >-
  Reads PDFs: text, tables
  and forms.
metadata:
  author: docs-team
  links:
    home: https://example.com/pdf
---

# PDF tools
"""


def people_skills_zip() -> Archive:
    """Two skills in one zip: Claude Code's `hooks:` with a flow-map `metadata` and an unquoted colon in the
    description; a name that does not follow the spec (`PDF Tools`) with a folded description and nested
    metadata."""
    return Archive(
        "people-skills.zip",
        _zip({"skills/safe-deploy/SKILL.md": HOOKS_SKILL_MD, "skills/pdf-tools/SKILL.md": LOOSE_NAME_SKILL_MD}),
    )


def dot_skill_file() -> Archive:
    """A `.skill` file as Claude exports one: a zip of the skill's folder, named `<name>.skill`."""
    body = "\n# Meeting notes\n\nSummarise a meeting.\n"
    files = {
        "meeting-notes/SKILL.md": skill_md("meeting-notes", "Turns a transcript into notes.", body),
        "meeting-notes/LICENSE.txt": license_text(),
    }
    return Archive("meeting-notes.skill", _zip(files))


def many_keys_skill_md(name: str = "many-keys", keys: int = 60_000) -> bytes:
    """A SKILL.md whose frontmatter holds ``keys`` extra keys (60,000 is about 590 KB: past every cap)."""
    extra = "".join(f"k{i}: v\n" for i in range(keys))
    return f"---\nname: {name}\ndescription: Looks like a skill.\n{extra}---\n# Body\n".encode()


def many_keys_skill(keys: int = 60_000) -> Archive:
    """A `.skill` file (a zip, about 140 KB) whose SKILL.md frontmatter holds ``keys`` keys."""
    return Archive("many-keys.skill", _zip({"many-keys/SKILL.md": many_keys_skill_md(keys=keys)}))
