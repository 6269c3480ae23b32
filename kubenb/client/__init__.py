"""Talking to an API server over requests: config, REST, watch, pager, discovery, dynamic.

client-go's rest, discovery, dynamic, tools/pager and clientcmd packages, in Python.
"""

from kubenb.client.config import (
    Config,
    config_from_dict,
    load_config,
    load_incluster_config,
    load_kube_config,
)
from kubenb.client.discovery import DiscoveryClient, ResourceInfo, RESTMapper
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager, PageInfo
from kubenb.client.rest import RESTClient
from kubenb.client.typed import Clientset
from kubenb.client.watch import Watch, WatchEvent

__all__ = [
    "Clientset",
    "Config",
    "DiscoveryClient",
    "DynamicClient",
    "ListOptions",
    "ListPager",
    "PageInfo",
    "RESTClient",
    "RESTMapper",
    "ResourceClient",
    "ResourceInfo",
    "Watch",
    "WatchEvent",
    "config_from_dict",
    "load_config",
    "load_incluster_config",
    "load_kube_config",
]
