"""main.go: clients from -kubeconfig / -master, informer factories, leader election.

sample-controller's main.go shape for the described controller: a signal stops it, one
shared informer factory per namespace, selector and resync period of the prototype's
informers (typed for built-in kinds, dynamic for custom resources), an Event
broadcaster when the reconcile records Events, and `leaderelection.RunOrDie` over the
prototype's Lease when it ran under one.
"""

from __future__ import annotations

from kubenb.port.context import PortContext
from kubenb.port.controller_file import new_controller_params
from kubenb.port.gofile import go_duration, go_file
from kubenb.port.values import go_string

__all__ = ["main_go"]


def main_go(ctx: PortContext) -> str:
    """The text of main.go."""
    spec = ctx.spec
    dynamic_watched = [w for w in spec.watched if not w.resource.typed]
    needs_dynamic = bool(ctx.dynamic or dynamic_watched)
    factories: dict[tuple[bool, str, str, str, float], str] = {}
    body = ["var (", "\tmasterURL string", "\tkubeconfig string", ")", "",
            "// workers is the prototype's worker count.",
            f"const workers = {spec.workers}", "",
            "func main() {",
            "\tklog.InitFlags(nil)",
            "\tflag.Parse()",
            "",
            "\tctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, "
            "syscall.SIGTERM)",
            "\tdefer cancel()",
            "\tlogger := klog.FromContext(ctx)",
            "",
            "\tcfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)",
            "\tif err != nil {",
            '\t\tlogger.Error(err, "Error building kubeconfig")',
            "\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
            "\t}",
            "\tkubeClient, err := kubernetes.NewForConfig(cfg)",
            "\tif err != nil {",
            '\t\tlogger.Error(err, "Error building kubernetes clientset")',
            "\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
            "\t}"]
    if needs_dynamic:
        body += ["\tdynamicClient, err := dynamic.NewForConfig(cfg)",
                 "\tif err != nil {",
                 '\t\tlogger.Error(err, "Error building dynamic client")',
                 "\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
                 "\t}"]
    body.append("")
    args = new_controller_params(ctx, spec.watched)
    for w in spec.watched:
        key = (w.resource.typed, w.namespace, w.label_selector, w.field_selector, w.resync)
        if key not in factories:
            base = "kubeInformerFactory" if w.resource.typed else "dynamicInformerFactory"
            n = sum(1 for k in factories if k[0] == w.resource.typed)
            name = base if n == 0 else f"{base}{n + 1}"
            factories[key] = name
            tweak = ""
            if w.label_selector or w.field_selector:
                sets = []
                if w.label_selector:
                    sets.append(f"options.LabelSelector = {go_string(w.label_selector)}")
                if w.field_selector:
                    sets.append(f"options.FieldSelector = {go_string(w.field_selector)}")
                tweak = "func(options *metav1.ListOptions) { " + "; ".join(sets) + " }"
            resync = go_duration(w.resync, in_call=True)
            if w.resource.typed:
                options = []
                if w.namespace:
                    options.append(f"kubeinformers.WithNamespace({go_string(w.namespace)})")
                if tweak:
                    options.append(f"kubeinformers.WithTweakListOptions({tweak})")
                body.append(f"\t{name} := kubeinformers.NewSharedInformerFactoryWithOptions("
                            f"kubeClient, {resync}{''.join(', ' + o for o in options)})")
            else:
                namespace = go_string(w.namespace) if w.namespace else "metav1.NamespaceAll"
                body.append(f"\t{name} := dynamicinformer.NewFilteredDynamicSharedInformer"
                            f"Factory(dynamicClient, {resync}, {namespace}, "
                            f"{tweak or 'nil'})")
        args.append(w.resource.informer_expr(factories[key]))
    if ctx.uses_recorder:
        body += ["",
                 "\teventBroadcaster := record.NewBroadcaster(record.WithContext(ctx))",
                 "\teventBroadcaster.StartStructuredLogging(0)",
                 "\teventBroadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{"
                 'Interface: kubeClient.CoreV1().Events("")})',
                 "\tdefer eventBroadcaster.Shutdown()",
                 "\trecorder := eventBroadcaster.NewRecorder(scheme.Scheme, "
                 "corev1.EventSource{Component: controllerAgentName})"]
    body += ["",
             f"\tcontroller, err := NewController({', '.join(args)})",
             "\tif err != nil {",
             '\t\tlogger.Error(err, "Error building controller")',
             "\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
             "\t}",
             "",
             "\trun := func(ctx context.Context) {"]
    for name in dict.fromkeys(factories.values()):
        body.append(f"\t\t{name}.Start(ctx.Done())")
    body += ["\t\tif err := controller.Run(ctx, workers); err != nil {",
             '\t\t\tlogger.Error(err, "Error running controller")',
             "\t\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
             "\t\t}",
             "\t}"]
    election = spec.leader_election
    if election is None:
        body += ["\trun(ctx)", "}"]
    else:
        body += ["",
                 "\t// Leader election, as the prototype ran it: one replica works at a time.",
                 "\tidentity, err := os.Hostname()",
                 "\tif err != nil {",
                 '\t\tlogger.Error(err, "Error reading the hostname for leader election")',
                 "\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 1)",
                 "\t}",
                 "\tlock := &resourcelock.LeaseLock{",
                 f"\t\tLeaseMeta: metav1.ObjectMeta{{Name: {go_string(election.name)}, "
                 f"Namespace: {go_string(election.namespace)}}},",
                 "\t\tClient: kubeClient.CoordinationV1(),",
                 "\t\tLockConfig: resourcelock.ResourceLockConfig{Identity: identity},",
                 "\t}",
                 "\tleaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{",
                 "\t\tLock: lock,",
                 f"\t\tReleaseOnCancel: {'true' if election.release_on_cancel else 'false'},",
                 f"\t\tLeaseDuration: {go_duration(election.lease_duration)},",
                 f"\t\tRenewDeadline: {go_duration(election.renew_deadline)},",
                 f"\t\tRetryPeriod: {go_duration(election.retry_period)},",
                 "\t\tName: controllerAgentName,",
                 "\t\tCallbacks: leaderelection.LeaderCallbacks{",
                 "\t\t\tOnStartedLeading: run,",
                 "\t\t\tOnStoppedLeading: func() {",
                 '\t\t\t\tlogger.Info("Leader election lost")',
                 "\t\t\t\tklog.FlushAndExit(klog.ExitFlushTimeout, 0)",
                 "\t\t\t},",
                 "\t\t},",
                 "\t})",
                 "}"]
    body += ["",
             "func init() {",
             '\tflag.StringVar(&kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Only '
             'required if out-of-cluster.")',
             '\tflag.StringVar(&masterURL, "master", "", "The address of the Kubernetes API '
             'server. Overrides any value in kubeconfig. Only required if out-of-cluster.")',
             "}"]
    return go_file(spec.name, "\n".join(body))
