#!/usr/bin/env python3
"""Self-test of rib_compare.py's parsing and diffing (no root, no daemons): the live test's
verdicts are only as good as these. Inputs are real zebra 8.4.4 JSON (testdata/zebra-*.json,
from a live run) and srv6ctl's JSON of the same routes from the same run (testdata/srv6ctl-*.json)."""
import copy
import json
import os
import sys
import unittest

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rib_compare as rc  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def zebra():
    out, notes = {}, []
    rc.zebra_doc_routes(254, load("zebra-ip-route.json"), out, notes)
    rc.zebra_doc_routes(254, load("zebra-ipv6-route.json"), out, notes)
    return out, notes


class ZebraSide(unittest.TestCase):
    def test_selected_routes_with_fib_nexthops(self):
        z, notes = zebra()
        self.assertEqual(notes, [])
        self.assertEqual(len(z), 8)
        # recursive: the resolved path (fib), not the recursive nexthop 198.51.100.77
        self.assertEqual(z[(254, "172.16.0.0/16")]["nexthops"], {("10.12.0.2", 2, None, None)})
        self.assertEqual(z[(254, "172.16.0.0/16")]["protocol"], 196)
        # connected -> protocol kernel (2), as zebra sends it
        self.assertEqual(z[(254, "10.12.0.0/24")], {"protocol": 2, "type": "unicast",
                                                     "nexthops": frozenset({(None, 2, None, None)})})
        # fe80::/64 exists on e0 and e1: only the selected entry (e0) counts
        self.assertEqual(z[(254, "fe80::/64")]["nexthops"], {(None, 2, None, None)})
        self.assertEqual(len(z[(254, "10.50.0.0/24")]["nexthops"]), 2)

    def test_blackhole_has_no_paths(self):
        z, _ = zebra()
        self.assertEqual(z[(254, "203.0.113.0/25")], {"protocol": 196, "type": "blackhole", "nexthops": frozenset()})

    def test_srv6_placeholders_mean_none(self):
        z, _ = zebra()
        self.assertEqual(z[(254, "2001:db8:e1::/48")]["nexthops"], {("fc00:12::2", 2, ("fc00:0:2::100",), None)})
        self.assertEqual(z[(254, "fc00:0:1::2/128")]["nexthops"], {(None, 2, None, "end.x")})

    def test_not_installed_is_left_out_and_reported(self):
        doc = load("zebra-ip-route.json")
        doc["10.50.0.0/24"][0]["installed"] = False
        out, notes = {}, []
        rc.zebra_doc_routes(254, doc, out, notes)
        self.assertNotIn((254, "10.50.0.0/24"), out)
        self.assertEqual(len(notes), 1)


class Srv6dSide(unittest.TestCase):
    def test_same_routes_no_diff(self):
        z, _ = zebra()
        s = rc.srv6d_doc_routes(load("srv6ctl-routes.json"))
        self.assertEqual(rc.diff_routes(z, s), [])

    def test_differences_are_found(self):
        z, _ = zebra()
        doc = load("srv6ctl-routes.json")

        def r(d, prefix):
            return next(x for x in d["254"] if x["prefix"] == prefix)

        for mutate, expect in [
            (lambda d: r(d, "10.50.0.0/24")["nexthops"][1].update(ifindex=2), "10.50.0.0/24"),  # wrong oif
            (lambda d: r(d, "10.50.0.0/24")["nexthops"].pop(), "10.50.0.0/24"),  # lost ECMP leg
            (lambda d: d["254"].remove(r(d, "172.16.0.0/16")), "only in zebra : table 254 172.16.0.0/16"),
            (lambda d: d.setdefault("100", []).append(copy.deepcopy(r(d, "10.12.0.0/24"))),
             "only in srv6d : table 100 10.12.0.0/24"),
            (lambda d: r(d, "172.16.0.0/16").update(protocol=186), "172.16.0.0/16"),
            (lambda d: r(d, "203.0.113.0/25").update(type="unreachable"), "203.0.113.0/25"),
            (lambda d: r(d, "2001:db8:e1::/48")["nexthops"][0]["seg6"].update(segments=["fc00::1"]),
             "2001:db8:e1::/48"),
            (lambda d: r(d, "2001:db8:e1::/48")["nexthops"][0].pop("seg6"), "2001:db8:e1::/48"),  # encap lost
            (lambda d: r(d, "fc00:0:1::2/128")["nexthops"][0]["seg6local"].update(behavior="End"),
             "fc00:0:1::2/128"),
            (lambda d: r(d, "2001:db8:50::/64")["nexthops"][0].update(gateway="fe80::1"), "2001:db8:50::/64"),
        ]:
            d = copy.deepcopy(doc)
            mutate(d)
            diff = "\n".join(rc.diff_routes(z, rc.srv6d_doc_routes(d)))
            self.assertIn(expect, diff)

    def test_empty_proto3_objects_mean_none(self):
        d = load("srv6ctl-routes.json")
        self.assertEqual(d["254"][0]["prefix"], "10.12.0.0/24")
        d["254"][0]["nexthops"][0]["seg6"] = {"mode": "", "segments": []}
        d["254"][0]["nexthops"][0]["seg6local"] = {"behavior": "", "action": 0, "flavors": []}
        self.assertEqual(rc.srv6d_doc_routes(d)[(254, "10.12.0.0/24")]["nexthops"], {(None, 2, None, None)})

    def test_sid_attributes_come_from_seg6local(self):
        sids = rc.srv6d_doc_sids(load("srv6ctl-sids.json"))
        self.assertEqual(sids["fc00:0:1::5/128"]["table"], 100)  # not the SID's route table 254
        self.assertEqual(sids["fc00:0:1::2/128"]["nh6"], "fc00:12::2")
        self.assertTrue(rc.same_value(sids["fc00:0:1::2/128"]["nh6"], "fc00:12:0::2"))

    def test_route_refs(self):
        self.assertEqual(rc.parse_route_ref("254:2001:db8:50::/64:2"), ((254, "2001:db8:50::/64"), 2))
        self.assertEqual(rc.parse_route_ref("1000:192.0.2.0/24"), ((1000, "192.0.2.0/24"), None))
        self.assertEqual(rc.parse_route_ref("254:fc00:0:1::1/128:0"), ((254, "fc00:0:1::1/128"), 0))


if __name__ == "__main__":
    unittest.main()
