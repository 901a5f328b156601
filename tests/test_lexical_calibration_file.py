"""A calibration read from a file (``calibration.load``): the shipped one round-trips, a bad file
is a clear error naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_sprout.judges.lexical import calibration


def _write(path: Path, **fields: object) -> Path:
    path.write_text(json.dumps({**calibration.shipped()._asdict(), **fields}), encoding="utf-8")
    return path


def test_the_shipped_calibration_round_trips(tmp_path: Path) -> None:
    assert calibration.load(_write(tmp_path / "c.json")) == calibration.shipped()
    other = calibration.load(_write(tmp_path / "d.json", version="mine", threshold=0.7))
    assert (other.version, other.threshold) == ("mine", 0.7)


@pytest.mark.parametrize(("fields", "message"), [
    ({"features": ["coverage"]}, "field 'features'"),
    ({"coefficients": [1.0]}, "coefficients"),
    ({"threshold": 2}, "'threshold' must be in"),
    ({"intercept": "x"}, "finite numbers"),
    ({"version": ""}, "'version'"),
])
def test_a_bad_calibration_names_the_file_and_field(tmp_path: Path, fields: dict, message: str) -> None:
    path = _write(tmp_path / "bad.json", **fields)
    with pytest.raises(ValueError, match=message) as info:
        calibration.load(path)
    assert str(path) in str(info.value)


def test_an_unreadable_calibration_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read a calibration"):
        calibration.load(bad)
    (tmp_path / "y.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="missing field"):
        calibration.load(tmp_path / "y.json")
