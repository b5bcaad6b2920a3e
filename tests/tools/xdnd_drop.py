"""Drops a file onto an X window as a file manager would, through the XDND protocol
(version 5, freedesktop.org): enter, position, drop, then hand over the file's URI when
the window asks for the selection. xdotool has no drag and drop; tests/viewer.rs uses this.

usage: xdnd_drop.py WINDOW_ID PATH   (DISPLAY names the X server; needs python3-xlib)
"""

import sys
import time
import urllib.parse

from Xlib import X, Xatom, display, protocol


def main():
    target_id, path = int(sys.argv[1]), sys.argv[2]
    d = display.Display()
    atom = lambda name: d.intern_atom(name)
    uri_list = atom("text/uri-list")
    source = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    target = d.create_resource_object("window", target_id)
    source.set_selection_owner(atom("XdndSelection"), X.CurrentTime)

    def send(message, data):
        event = protocol.event.ClientMessage(
            window=target, client_type=atom(message), data=(32, [source.id] + data + [0] * (4 - len(data))))
        target.send_event(event, event_mask=0)
        d.flush()

    geometry = target.get_geometry()
    origin = target.translate_coords(d.screen().root, 0, 0)
    x, y = -origin.x + geometry.width // 2, -origin.y + geometry.height // 2
    send("XdndEnter", [5 << 24, uri_list, 0, 0])
    send("XdndPosition", [0, (x << 16) | y, X.CurrentTime, atom("XdndActionCopy")])
    deadline = time.time() + 20
    dropped = False
    while time.time() < deadline:
        if not d.pending_events():
            time.sleep(0.01)
            continue
        event = d.next_event()
        if event.type == X.ClientMessage and event.client_type == atom("XdndStatus") and not dropped:
            send("XdndDrop", [0, X.CurrentTime])
            dropped = True
        elif event.type == X.SelectionRequest:
            uri = "file://" + urllib.parse.quote(path) + "\r\n"
            requestor = event.requestor
            requestor.change_property(event.property, uri_list, 8, uri.encode())
            notify = protocol.event.SelectionNotify(
                time=event.time, requestor=requestor, selection=event.selection,
                target=event.target, property=event.property)
            requestor.send_event(notify, event_mask=0)
            d.flush()
        elif event.type == X.ClientMessage and event.client_type == atom("XdndFinished"):
            return 0
    print("xdnd_drop.py: the window did not finish the drop", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
