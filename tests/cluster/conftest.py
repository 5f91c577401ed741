"""Ray in these tests stays on loopback: Ray reads this variable when it is imported, and binds to the
machine's network address unless told the cluster is not multi-host; worker nodes inherit it."""
import os

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
