"""client-go's util/workqueue."""
