"""client-go's tools/cache: keys, stores, indexers, queues and selectors."""
