"""The scripted dice source the rolls tests share (plain Python, no Django)."""


class ScriptedRng:
    """An rng whose ``randint`` returns the queued faces in order, checks each lies in the asked
    range, records every call in ``calls`` and fails when it runs out."""

    def __init__(self, *faces):
        self.faces = list(faces)
        self.calls = []

    def randint(self, a, b):
        self.calls.append((a, b))
        face = self.faces.pop(0)
        assert a <= face <= b
        return face
