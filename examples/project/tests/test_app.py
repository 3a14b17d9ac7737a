import unittest

from src.app import version


class VersionTest(unittest.TestCase):
    def test_version(self):
        self.assertEqual(version(), "2.4.0")
