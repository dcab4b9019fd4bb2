"""The redaction rule table shared with the server and the TypeScript SDK (test/fixtures/redaction-cases.json)."""

import json
import pathlib
import unittest

from toolcoach.redaction import is_secret_key, redact_secrets, redact_secrets_in_text

CASES = json.loads(
    (pathlib.Path(__file__).resolve().parents[2] / "test" / "fixtures" / "redaction-cases.json").read_text("utf-8")
)


class SharedRedactionRules(unittest.TestCase):
    def test_secret_keys(self):
        for key in CASES["secretKeys"]:
            with self.subTest(key=key):
                self.assertTrue(is_secret_key(key))

    def test_kept_keys(self):
        for key in CASES["keptKeys"]:
            with self.subTest(key=key):
                self.assertFalse(is_secret_key(key))

    def test_values(self):
        for case in CASES["values"]:
            with self.subTest(value=case["input"]):
                self.assertEqual(redact_secrets(case["input"]), case["output"])

    def test_text(self):
        for case in CASES["text"]:
            with self.subTest(text=case["input"]):
                self.assertEqual(redact_secrets_in_text(case["input"]), case["output"])


if __name__ == "__main__":
    unittest.main()
