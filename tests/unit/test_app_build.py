"""The build empties its output folder first: a folder named by TIDEPOOL_DIST must never hold the checkout."""

from __future__ import annotations

from pathlib import Path

from scripts.app_build import ROOT, holds_our_files


def test_the_build_never_empties_the_checkout_or_its_folders() -> None:
    for kept in (ROOT, ROOT.parent, Path(ROOT.anchor), ROOT / "web" / "dist", ROOT / "tests", ROOT / ".git"):
        assert holds_our_files(kept), kept


def test_a_folder_of_its_own_is_built_into() -> None:
    for own in (ROOT / "dist", ROOT / "dist-old", ROOT.parent / "elsewhere", Path(ROOT.anchor) / "tmp" / "dist"):
        assert not holds_our_files(own), own
