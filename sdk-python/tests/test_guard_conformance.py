"""The Python guard held to the guard's contract (test/fixtures/guard-conformance.json): each case must come out as the
server's validate says, the same table the server's, the TypeScript SDK's and the gateway's suites read."""

import json
import os
import unittest

from toolcoach.guard import ArgumentGuard

TABLE = os.path.join(os.path.dirname(__file__), "..", "..", "test", "fixtures", "guard-conformance.json")


def outcome_of(guard, args):
    verdict = guard.check(args)
    if verdict.action == "correct":
        return {"valid": False, "outcome": "corrected", "corrected": verdict.correction["corrected"]}
    if verdict.action == "refuse":
        return {"valid": False, "outcome": "refused", "text": verdict.message}
    return {"valid": guard.answer(args)["valid"], "outcome": "pass"}


class GuardConformanceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(TABLE, encoding="utf-8") as table:
            cls.table = json.load(table)

    def test_the_table_has_the_cases_the_contract_names(self):
        self.assertGreaterEqual(len(self.table["cases"]), 40)

    def test_every_case_comes_out_as_validate_says(self):
        for case in self.table["cases"]:
            with self.subTest(case["name"]):
                section = dict(case.get("guard") or {"renames": [], "limits": []}, version=1, policy=case["mode"], schema="parameters")
                guard = ArgumentGuard(case["tool"], self.table["schemas"][case["tool"]], section, case["mode"])
                self.assertEqual(outcome_of(guard, case["arguments"]), case["expected"])


if __name__ == "__main__":
    unittest.main()
