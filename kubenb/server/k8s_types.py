"""The wire shape of Kubernetes v1.32's built-in API types (generated table data; do not edit).

Made by tools/gen_k8s_types.py from the Go struct tags of k8s.io/api, k8s.io/apimachinery
(meta/v1) and k8s.io/kube-aggregator at tag kubernetes-1.32.0: per struct, in Go field order
(the order the apiserver writes JSON keys in), one token per field:

    jsonName:protobufNumber:type[:flags]

type: s string, b bool, i integer, f float, y bytes (base64 in JSON), q Quantity, t Time,
m MicroTime, d Duration, io IntOrString, raw RawExtension, fv1 FieldsV1, @pkg.Struct a
struct, []T a list of T, {}T a map from string to T. flags: p pointer, o omitempty,
n inline (the struct's fields appear in its parent's JSON), L= listType, M= listMapKey
(keys joined by +), T= mapType or structType, P= patchStrategy, K= patchMergeKey.
A struct name ending in ! is +structType=atomic. An inline field's json name is "-".
"""

__all__ = ["KINDS", "TABLE"]

TABLE = """
admissionregistration/v1.AuditAnnotation key:1:s valueExpression:2:s
admissionregistration/v1.ExpressionWarning fieldRef:2:s warning:3:s
admissionregistration/v1.MatchCondition name:1:s expression:2:s
admissionregistration/v1.MatchResources! namespaceSelector:1:@meta/v1.LabelSelector:p,o
  objectSelector:2:@meta/v1.LabelSelector:p,o
  resourceRules:3:[]@admissionregistration/v1.NamedRuleWithOperations:o,L=atomic
  excludeResourceRules:4:[]@admissionregistration/v1.NamedRuleWithOperations:o,L=atomic
  matchPolicy:7:s:p,o
admissionregistration/v1.MutatingWebhook name:1:s
  clientConfig:2:@admissionregistration/v1.WebhookClientConfig
  rules:3:[]@admissionregistration/v1.RuleWithOperations:o,L=atomic failurePolicy:4:s:p,o
  matchPolicy:9:s:p,o namespaceSelector:5:@meta/v1.LabelSelector:p,o
  objectSelector:11:@meta/v1.LabelSelector:p,o sideEffects:6:s:p timeoutSeconds:7:i:p,o
  admissionReviewVersions:8:[]s:L=atomic reinvocationPolicy:10:s:p,o
  matchConditions:12:[]@admissionregistration/v1.MatchCondition:o,L=map,M=name,P=merge,K=name
admissionregistration/v1.MutatingWebhookConfiguration metadata:1:@meta/v1.ObjectMeta:o
  webhooks:2:[]@admissionregistration/v1.MutatingWebhook:o,L=map,M=name,P=merge,K=name
admissionregistration/v1.NamedRuleWithOperations! resourceNames:1:[]s:o,L=atomic
  -:2:@admissionregistration/v1.RuleWithOperations:n
admissionregistration/v1.ParamKind! apiVersion:1:s:o kind:2:s:o
admissionregistration/v1.ParamRef! name:1:s:o namespace:2:s:o selector:3:@meta/v1.LabelSelector:p,o
  parameterNotFoundAction:4:s:p,o
admissionregistration/v1.Rule apiGroups:1:[]s:o,L=atomic apiVersions:2:[]s:o,L=atomic
  resources:3:[]s:o,L=atomic scope:4:s:p,o
admissionregistration/v1.RuleWithOperations operations:1:[]s:o,L=atomic
  -:2:@admissionregistration/v1.Rule:n
admissionregistration/v1.ServiceReference namespace:1:s name:2:s path:3:s:p,o port:4:i:p,o
admissionregistration/v1.TypeChecking
  expressionWarnings:1:[]@admissionregistration/v1.ExpressionWarning:o,L=atomic
admissionregistration/v1.ValidatingAdmissionPolicy metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@admissionregistration/v1.ValidatingAdmissionPolicySpec:o
  status:3:@admissionregistration/v1.ValidatingAdmissionPolicyStatus:o
admissionregistration/v1.ValidatingAdmissionPolicyBinding metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@admissionregistration/v1.ValidatingAdmissionPolicyBindingSpec:o
admissionregistration/v1.ValidatingAdmissionPolicyBindingSpec policyName:1:s:o
  paramRef:2:@admissionregistration/v1.ParamRef:p,o
  matchResources:3:@admissionregistration/v1.MatchResources:p,o validationActions:4:[]s:o,L=set
admissionregistration/v1.ValidatingAdmissionPolicySpec
  paramKind:1:@admissionregistration/v1.ParamKind:p,o
  matchConstraints:2:@admissionregistration/v1.MatchResources:p,o
  validations:3:[]@admissionregistration/v1.Validation:o,L=atomic failurePolicy:4:s:p,o
  auditAnnotations:5:[]@admissionregistration/v1.AuditAnnotation:o,L=atomic
  matchConditions:6:[]@admissionregistration/v1.MatchCondition:o,L=map,M=name,P=merge,K=name
  variables:7:[]@admissionregistration/v1.Variable:o,L=map,M=name,P=merge,K=name
admissionregistration/v1.ValidatingAdmissionPolicyStatus observedGeneration:1:i:o
  typeChecking:2:@admissionregistration/v1.TypeChecking:p,o
  conditions:3:[]@meta/v1.Condition:o,L=map,M=type
admissionregistration/v1.ValidatingWebhook name:1:s
  clientConfig:2:@admissionregistration/v1.WebhookClientConfig
  rules:3:[]@admissionregistration/v1.RuleWithOperations:o,L=atomic failurePolicy:4:s:p,o
  matchPolicy:9:s:p,o namespaceSelector:5:@meta/v1.LabelSelector:p,o
  objectSelector:10:@meta/v1.LabelSelector:p,o sideEffects:6:s:p timeoutSeconds:7:i:p,o
  admissionReviewVersions:8:[]s:L=atomic
  matchConditions:11:[]@admissionregistration/v1.MatchCondition:o,L=map,M=name,P=merge,K=name
admissionregistration/v1.ValidatingWebhookConfiguration metadata:1:@meta/v1.ObjectMeta:o
  webhooks:2:[]@admissionregistration/v1.ValidatingWebhook:o,L=map,M=name,P=merge,K=name
admissionregistration/v1.Validation expression:1:s message:2:s:o reason:3:s:p,o
  messageExpression:4:s:o
admissionregistration/v1.Variable! name:1:s expression:2:s
admissionregistration/v1.WebhookClientConfig url:3:s:p,o
  service:1:@admissionregistration/v1.ServiceReference:p,o caBundle:2:y:o
apiregistration/v1.APIService metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@apiregistration/v1.APIServiceSpec:o status:3:@apiregistration/v1.APIServiceStatus:o
apiregistration/v1.APIServiceCondition type:1:s status:2:s lastTransitionTime:3:t:o reason:4:s:o
  message:5:s:o
apiregistration/v1.APIServiceSpec service:1:@apiregistration/v1.ServiceReference:p,o group:2:s:o
  version:3:s:o insecureSkipTLSVerify:4:b:o caBundle:5:y:o,L=atomic groupPriorityMinimum:7:i
  versionPriority:8:i
apiregistration/v1.APIServiceStatus
  conditions:1:[]@apiregistration/v1.APIServiceCondition:o,L=map,M=type,P=merge,K=type
apiregistration/v1.ServiceReference namespace:1:s:o name:2:s:o port:3:i:p,o
apps/v1.ControllerRevision metadata:1:@meta/v1.ObjectMeta:o data:2:raw:o revision:3:i
apps/v1.DaemonSet metadata:1:@meta/v1.ObjectMeta:o spec:2:@apps/v1.DaemonSetSpec:o
  status:3:@apps/v1.DaemonSetStatus:o
apps/v1.DaemonSetCondition type:1:s status:2:s lastTransitionTime:3:t:o reason:4:s:o message:5:s:o
apps/v1.DaemonSetSpec selector:1:@meta/v1.LabelSelector:p template:2:@core/v1.PodTemplateSpec
  updateStrategy:3:@apps/v1.DaemonSetUpdateStrategy:o minReadySeconds:4:i:o
  revisionHistoryLimit:6:i:p,o
apps/v1.DaemonSetStatus currentNumberScheduled:1:i numberMisscheduled:2:i
  desiredNumberScheduled:3:i numberReady:4:i observedGeneration:5:i:o updatedNumberScheduled:6:i:o
  numberAvailable:7:i:o numberUnavailable:8:i:o collisionCount:9:i:p,o
  conditions:10:[]@apps/v1.DaemonSetCondition:o,L=map,M=type,P=merge,K=type
apps/v1.DaemonSetUpdateStrategy type:1:s:o rollingUpdate:2:@apps/v1.RollingUpdateDaemonSet:p,o
apps/v1.Deployment metadata:1:@meta/v1.ObjectMeta:o spec:2:@apps/v1.DeploymentSpec:o
  status:3:@apps/v1.DeploymentStatus:o
apps/v1.DeploymentCondition type:1:s status:2:s lastUpdateTime:6:t:o lastTransitionTime:7:t:o
  reason:4:s:o message:5:s:o
apps/v1.DeploymentSpec replicas:1:i:p,o selector:2:@meta/v1.LabelSelector:p
  template:3:@core/v1.PodTemplateSpec strategy:4:@apps/v1.DeploymentStrategy:o,P=retainKeys
  minReadySeconds:5:i:o revisionHistoryLimit:6:i:p,o paused:7:b:o progressDeadlineSeconds:9:i:p,o
apps/v1.DeploymentStatus observedGeneration:1:i:o replicas:2:i:o updatedReplicas:3:i:o
  readyReplicas:7:i:o availableReplicas:4:i:o unavailableReplicas:5:i:o
  conditions:6:[]@apps/v1.DeploymentCondition:o,L=map,M=type,P=merge,K=type collisionCount:8:i:p,o
apps/v1.DeploymentStrategy type:1:s:o rollingUpdate:2:@apps/v1.RollingUpdateDeployment:p,o
apps/v1.ReplicaSet metadata:1:@meta/v1.ObjectMeta:o spec:2:@apps/v1.ReplicaSetSpec:o
  status:3:@apps/v1.ReplicaSetStatus:o
apps/v1.ReplicaSetCondition type:1:s status:2:s lastTransitionTime:3:t:o reason:4:s:o message:5:s:o
apps/v1.ReplicaSetSpec replicas:1:i:p,o minReadySeconds:4:i:o selector:2:@meta/v1.LabelSelector:p
  template:3:@core/v1.PodTemplateSpec:o
apps/v1.ReplicaSetStatus replicas:1:i fullyLabeledReplicas:2:i:o readyReplicas:4:i:o
  availableReplicas:5:i:o observedGeneration:3:i:o
  conditions:6:[]@apps/v1.ReplicaSetCondition:o,L=map,M=type,P=merge,K=type
apps/v1.RollingUpdateDaemonSet maxUnavailable:1:io:p,o maxSurge:2:io:p,o
apps/v1.RollingUpdateDeployment maxUnavailable:1:io:p,o maxSurge:2:io:p,o
apps/v1.RollingUpdateStatefulSetStrategy partition:1:i:p,o maxUnavailable:2:io:p,o
apps/v1.StatefulSet metadata:1:@meta/v1.ObjectMeta:o spec:2:@apps/v1.StatefulSetSpec:o
  status:3:@apps/v1.StatefulSetStatus:o
apps/v1.StatefulSetCondition type:1:s status:2:s lastTransitionTime:3:t:o reason:4:s:o
  message:5:s:o
apps/v1.StatefulSetOrdinals start:1:i
apps/v1.StatefulSetPersistentVolumeClaimRetentionPolicy whenDeleted:1:s:o whenScaled:2:s:o
apps/v1.StatefulSetSpec replicas:1:i:p,o selector:2:@meta/v1.LabelSelector:p
  template:3:@core/v1.PodTemplateSpec
  volumeClaimTemplates:4:[]@core/v1.PersistentVolumeClaim:o,L=atomic serviceName:5:s
  podManagementPolicy:6:s:o updateStrategy:7:@apps/v1.StatefulSetUpdateStrategy:o
  revisionHistoryLimit:8:i:p,o minReadySeconds:9:i:o
  persistentVolumeClaimRetentionPolicy:10:@apps/v1.StatefulSetPersistentVolumeClaimRetentionPolicy:p,o
  ordinals:11:@apps/v1.StatefulSetOrdinals:p,o
apps/v1.StatefulSetStatus observedGeneration:1:i:o replicas:2:i readyReplicas:3:i:o
  currentReplicas:4:i:o updatedReplicas:5:i:o currentRevision:6:s:o updateRevision:7:s:o
  collisionCount:9:i:p,o
  conditions:10:[]@apps/v1.StatefulSetCondition:o,L=map,M=type,P=merge,K=type
  availableReplicas:11:i
apps/v1.StatefulSetUpdateStrategy type:1:s:o
  rollingUpdate:2:@apps/v1.RollingUpdateStatefulSetStrategy:p,o
authentication/v1.BoundObjectReference kind:1:s:o apiVersion:2:s:o name:3:s:o uid:4:s:o
authentication/v1.SelfSubjectReview metadata:1:@meta/v1.ObjectMeta:o
  status:2:@authentication/v1.SelfSubjectReviewStatus:o
authentication/v1.SelfSubjectReviewStatus userInfo:1:@authentication/v1.UserInfo:o
authentication/v1.TokenRequest metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authentication/v1.TokenRequestSpec status:3:@authentication/v1.TokenRequestStatus:o
authentication/v1.TokenRequestSpec audiences:1:[]s:L=atomic expirationSeconds:4:i:p
  boundObjectRef:3:@authentication/v1.BoundObjectReference:p
authentication/v1.TokenRequestStatus token:1:s expirationTimestamp:2:t
authentication/v1.TokenReview metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authentication/v1.TokenReviewSpec status:3:@authentication/v1.TokenReviewStatus:o
authentication/v1.TokenReviewSpec token:1:s:o audiences:2:[]s:o,L=atomic
authentication/v1.TokenReviewStatus authenticated:1:b:o user:2:@authentication/v1.UserInfo:o
  audiences:4:[]s:o,L=atomic error:3:s:o
authentication/v1.UserInfo username:1:s:o uid:2:s:o groups:3:[]s:o,L=atomic extra:4:{}[]s:o
authorization/v1.FieldSelectorAttributes rawSelector:1:s:o
  requirements:2:[]@meta/v1.FieldSelectorRequirement:o,L=atomic
authorization/v1.LabelSelectorAttributes rawSelector:1:s:o
  requirements:2:[]@meta/v1.LabelSelectorRequirement:o,L=atomic
authorization/v1.LocalSubjectAccessReview metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authorization/v1.SubjectAccessReviewSpec
  status:3:@authorization/v1.SubjectAccessReviewStatus:o
authorization/v1.NonResourceAttributes path:1:s:o verb:2:s:o
authorization/v1.NonResourceRule verbs:1:[]s:L=atomic nonResourceURLs:2:[]s:o,L=atomic
authorization/v1.ResourceAttributes namespace:1:s:o verb:2:s:o group:3:s:o version:4:s:o
  resource:5:s:o subresource:6:s:o name:7:s:o
  fieldSelector:8:@authorization/v1.FieldSelectorAttributes:p,o
  labelSelector:9:@authorization/v1.LabelSelectorAttributes:p,o
authorization/v1.ResourceRule verbs:1:[]s:L=atomic apiGroups:2:[]s:o,L=atomic
  resources:3:[]s:o,L=atomic resourceNames:4:[]s:o,L=atomic
authorization/v1.SelfSubjectAccessReview metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authorization/v1.SelfSubjectAccessReviewSpec
  status:3:@authorization/v1.SubjectAccessReviewStatus:o
authorization/v1.SelfSubjectAccessReviewSpec
  resourceAttributes:1:@authorization/v1.ResourceAttributes:p,o
  nonResourceAttributes:2:@authorization/v1.NonResourceAttributes:p,o
authorization/v1.SelfSubjectRulesReview metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authorization/v1.SelfSubjectRulesReviewSpec
  status:3:@authorization/v1.SubjectRulesReviewStatus:o
authorization/v1.SelfSubjectRulesReviewSpec namespace:1:s:o
authorization/v1.SubjectAccessReview metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@authorization/v1.SubjectAccessReviewSpec
  status:3:@authorization/v1.SubjectAccessReviewStatus:o
authorization/v1.SubjectAccessReviewSpec
  resourceAttributes:1:@authorization/v1.ResourceAttributes:p,o
  nonResourceAttributes:2:@authorization/v1.NonResourceAttributes:p,o user:3:s:o
  groups:4:[]s:o,L=atomic extra:5:{}[]s:o uid:6:s:o
authorization/v1.SubjectAccessReviewStatus allowed:1:b denied:4:b:o reason:2:s:o
  evaluationError:3:s:o
authorization/v1.SubjectRulesReviewStatus resourceRules:1:[]@authorization/v1.ResourceRule:L=atomic
  nonResourceRules:2:[]@authorization/v1.NonResourceRule:L=atomic incomplete:3:b
  evaluationError:4:s:o
autoscaling/v1.CrossVersionObjectReference! kind:1:s name:2:s apiVersion:3:s:o
autoscaling/v1.HorizontalPodAutoscaler metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@autoscaling/v1.HorizontalPodAutoscalerSpec:o
  status:3:@autoscaling/v1.HorizontalPodAutoscalerStatus:o
autoscaling/v1.HorizontalPodAutoscalerSpec
  scaleTargetRef:1:@autoscaling/v1.CrossVersionObjectReference minReplicas:2:i:p,o maxReplicas:3:i
  targetCPUUtilizationPercentage:4:i:p,o
autoscaling/v1.HorizontalPodAutoscalerStatus observedGeneration:1:i:p,o lastScaleTime:2:t:p,o
  currentReplicas:3:i desiredReplicas:4:i currentCPUUtilizationPercentage:5:i:p,o
autoscaling/v1.Scale metadata:1:@meta/v1.ObjectMeta:o spec:2:@autoscaling/v1.ScaleSpec:o
  status:3:@autoscaling/v1.ScaleStatus:o
autoscaling/v1.ScaleSpec replicas:1:i:o
autoscaling/v1.ScaleStatus replicas:1:i selector:2:s:o
autoscaling/v2.ContainerResourceMetricSource name:1:s target:2:@autoscaling/v2.MetricTarget
  container:3:s
autoscaling/v2.ContainerResourceMetricStatus name:1:s current:2:@autoscaling/v2.MetricValueStatus
  container:3:s
autoscaling/v2.CrossVersionObjectReference kind:1:s name:2:s apiVersion:3:s:o
autoscaling/v2.ExternalMetricSource metric:1:@autoscaling/v2.MetricIdentifier
  target:2:@autoscaling/v2.MetricTarget
autoscaling/v2.ExternalMetricStatus metric:1:@autoscaling/v2.MetricIdentifier
  current:2:@autoscaling/v2.MetricValueStatus
autoscaling/v2.HPAScalingPolicy type:1:s value:2:i periodSeconds:3:i
autoscaling/v2.HPAScalingRules stabilizationWindowSeconds:3:i:p,o selectPolicy:1:s:p,o
  policies:2:[]@autoscaling/v2.HPAScalingPolicy:o,L=atomic
autoscaling/v2.HorizontalPodAutoscaler metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@autoscaling/v2.HorizontalPodAutoscalerSpec:o
  status:3:@autoscaling/v2.HorizontalPodAutoscalerStatus:o
autoscaling/v2.HorizontalPodAutoscalerBehavior scaleUp:1:@autoscaling/v2.HPAScalingRules:p,o
  scaleDown:2:@autoscaling/v2.HPAScalingRules:p,o
autoscaling/v2.HorizontalPodAutoscalerCondition type:1:s status:2:s lastTransitionTime:3:t:o
  reason:4:s:o message:5:s:o
autoscaling/v2.HorizontalPodAutoscalerSpec
  scaleTargetRef:1:@autoscaling/v2.CrossVersionObjectReference minReplicas:2:i:p,o maxReplicas:3:i
  metrics:4:[]@autoscaling/v2.MetricSpec:o,L=atomic
  behavior:5:@autoscaling/v2.HorizontalPodAutoscalerBehavior:p,o
autoscaling/v2.HorizontalPodAutoscalerStatus observedGeneration:1:i:p,o lastScaleTime:2:t:p,o
  currentReplicas:3:i:o desiredReplicas:4:i
  currentMetrics:5:[]@autoscaling/v2.MetricStatus:L=atomic
  conditions:6:[]@autoscaling/v2.HorizontalPodAutoscalerCondition:o,L=map,M=type,P=merge,K=type
autoscaling/v2.MetricIdentifier name:1:s selector:2:@meta/v1.LabelSelector:p,o
autoscaling/v2.MetricSpec type:1:s object:2:@autoscaling/v2.ObjectMetricSource:p,o
  pods:3:@autoscaling/v2.PodsMetricSource:p,o resource:4:@autoscaling/v2.ResourceMetricSource:p,o
  containerResource:7:@autoscaling/v2.ContainerResourceMetricSource:p,o
  external:5:@autoscaling/v2.ExternalMetricSource:p,o
autoscaling/v2.MetricStatus type:1:s object:2:@autoscaling/v2.ObjectMetricStatus:p,o
  pods:3:@autoscaling/v2.PodsMetricStatus:p,o resource:4:@autoscaling/v2.ResourceMetricStatus:p,o
  containerResource:7:@autoscaling/v2.ContainerResourceMetricStatus:p,o
  external:5:@autoscaling/v2.ExternalMetricStatus:p,o
autoscaling/v2.MetricTarget type:1:s value:2:q:p,o averageValue:3:q:p,o averageUtilization:4:i:p,o
autoscaling/v2.MetricValueStatus value:1:q:p,o averageValue:2:q:p,o averageUtilization:3:i:p,o
autoscaling/v2.ObjectMetricSource describedObject:1:@autoscaling/v2.CrossVersionObjectReference
  target:2:@autoscaling/v2.MetricTarget metric:3:@autoscaling/v2.MetricIdentifier
autoscaling/v2.ObjectMetricStatus metric:1:@autoscaling/v2.MetricIdentifier
  current:2:@autoscaling/v2.MetricValueStatus
  describedObject:3:@autoscaling/v2.CrossVersionObjectReference
autoscaling/v2.PodsMetricSource metric:1:@autoscaling/v2.MetricIdentifier
  target:2:@autoscaling/v2.MetricTarget
autoscaling/v2.PodsMetricStatus metric:1:@autoscaling/v2.MetricIdentifier
  current:2:@autoscaling/v2.MetricValueStatus
autoscaling/v2.ResourceMetricSource name:1:s target:2:@autoscaling/v2.MetricTarget
autoscaling/v2.ResourceMetricStatus name:1:s current:2:@autoscaling/v2.MetricValueStatus
batch/v1.CronJob metadata:1:@meta/v1.ObjectMeta:o spec:2:@batch/v1.CronJobSpec:o
  status:3:@batch/v1.CronJobStatus:o
batch/v1.CronJobSpec schedule:1:s timeZone:8:s:p,o startingDeadlineSeconds:2:i:p,o
  concurrencyPolicy:3:s:o suspend:4:b:p,o jobTemplate:5:@batch/v1.JobTemplateSpec
  successfulJobsHistoryLimit:6:i:p,o failedJobsHistoryLimit:7:i:p,o
batch/v1.CronJobStatus active:1:[]@core/v1.ObjectReference:o,L=atomic lastScheduleTime:4:t:p,o
  lastSuccessfulTime:5:t:p,o
batch/v1.Job metadata:1:@meta/v1.ObjectMeta:o spec:2:@batch/v1.JobSpec:o
  status:3:@batch/v1.JobStatus:o
batch/v1.JobCondition type:1:s status:2:s lastProbeTime:3:t:o lastTransitionTime:4:t:o reason:5:s:o
  message:6:s:o
batch/v1.JobSpec parallelism:1:i:p,o completions:2:i:p,o activeDeadlineSeconds:3:i:p,o
  podFailurePolicy:11:@batch/v1.PodFailurePolicy:p,o successPolicy:16:@batch/v1.SuccessPolicy:p,o
  backoffLimit:7:i:p,o backoffLimitPerIndex:12:i:p,o maxFailedIndexes:13:i:p,o
  selector:4:@meta/v1.LabelSelector:p,o manualSelector:5:b:p,o template:6:@core/v1.PodTemplateSpec
  ttlSecondsAfterFinished:8:i:p,o completionMode:9:s:p,o suspend:10:b:p,o
  podReplacementPolicy:14:s:p,o managedBy:15:s:p,o
batch/v1.JobStatus conditions:1:[]@batch/v1.JobCondition:o,L=atomic,P=merge,K=type
  startTime:2:t:p,o completionTime:3:t:p,o active:4:i:o succeeded:5:i:o failed:6:i:o
  terminating:11:i:p,o completedIndexes:7:s:o failedIndexes:10:s:p,o
  uncountedTerminatedPods:8:@batch/v1.UncountedTerminatedPods:p,o ready:9:i:p,o
batch/v1.JobTemplateSpec metadata:1:@meta/v1.ObjectMeta:o spec:2:@batch/v1.JobSpec:o
batch/v1.PodFailurePolicy rules:1:[]@batch/v1.PodFailurePolicyRule:L=atomic
batch/v1.PodFailurePolicyOnExitCodesRequirement containerName:1:s:p,o operator:2:s
  values:3:[]i:L=set
batch/v1.PodFailurePolicyOnPodConditionsPattern type:1:s status:2:s
batch/v1.PodFailurePolicyRule action:1:s
  onExitCodes:2:@batch/v1.PodFailurePolicyOnExitCodesRequirement:p,o
  onPodConditions:3:[]@batch/v1.PodFailurePolicyOnPodConditionsPattern:o,L=atomic
batch/v1.SuccessPolicy rules:1:[]@batch/v1.SuccessPolicyRule:L=atomic
batch/v1.SuccessPolicyRule succeededIndexes:1:s:p,o succeededCount:2:i:p,o
batch/v1.UncountedTerminatedPods succeeded:1:[]s:o,L=set failed:2:[]s:o,L=set
certificates/v1.CertificateSigningRequest metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@certificates/v1.CertificateSigningRequestSpec
  status:3:@certificates/v1.CertificateSigningRequestStatus:o
certificates/v1.CertificateSigningRequestCondition type:1:s status:6:s reason:2:s:o message:3:s:o
  lastUpdateTime:4:t:o lastTransitionTime:5:t:o
certificates/v1.CertificateSigningRequestSpec request:1:y:L=atomic signerName:7:s
  expirationSeconds:8:i:p,o usages:5:[]s:o,L=atomic username:2:s:o uid:3:s:o
  groups:4:[]s:o,L=atomic extra:6:{}[]s:o
certificates/v1.CertificateSigningRequestStatus
  conditions:1:[]@certificates/v1.CertificateSigningRequestCondition:o,L=map,M=type
  certificate:2:y:o,L=atomic
coordination/v1.Lease metadata:1:@meta/v1.ObjectMeta:o spec:2:@coordination/v1.LeaseSpec:o
coordination/v1.LeaseSpec holderIdentity:1:s:p,o leaseDurationSeconds:2:i:p,o acquireTime:3:m:p,o
  renewTime:4:m:p,o leaseTransitions:5:i:p,o strategy:6:s:p,o preferredHolder:7:s:p,o
core/v1.AWSElasticBlockStoreVolumeSource volumeID:1:s fsType:2:s:o partition:3:i:o readOnly:4:b:o
core/v1.Affinity nodeAffinity:1:@core/v1.NodeAffinity:p,o podAffinity:2:@core/v1.PodAffinity:p,o
  podAntiAffinity:3:@core/v1.PodAntiAffinity:p,o
core/v1.AppArmorProfile type:1:s localhostProfile:2:s:p,o
core/v1.AttachedVolume name:1:s devicePath:2:s
core/v1.AzureDiskVolumeSource diskName:1:s diskURI:2:s cachingMode:3:s:p,o fsType:4:s:p,o
  readOnly:5:b:p,o kind:6:s:p,o
core/v1.AzureFilePersistentVolumeSource secretName:1:s shareName:2:s readOnly:3:b:o
  secretNamespace:4:s:p
core/v1.AzureFileVolumeSource secretName:1:s shareName:2:s readOnly:3:b:o
core/v1.Binding metadata:1:@meta/v1.ObjectMeta:o target:2:@core/v1.ObjectReference
core/v1.CSIPersistentVolumeSource driver:1:s volumeHandle:2:s readOnly:3:b:o fsType:4:s:o
  volumeAttributes:5:{}s:o controllerPublishSecretRef:6:@core/v1.SecretReference:p,o
  nodeStageSecretRef:7:@core/v1.SecretReference:p,o
  nodePublishSecretRef:8:@core/v1.SecretReference:p,o
  controllerExpandSecretRef:9:@core/v1.SecretReference:p,o
  nodeExpandSecretRef:10:@core/v1.SecretReference:p,o
core/v1.CSIVolumeSource driver:1:s readOnly:2:b:p,o fsType:3:s:p,o volumeAttributes:4:{}s:o
  nodePublishSecretRef:5:@core/v1.LocalObjectReference:p,o
core/v1.Capabilities add:1:[]s:o,L=atomic drop:2:[]s:o,L=atomic
core/v1.CephFSPersistentVolumeSource monitors:1:[]s:L=atomic path:2:s:o user:3:s:o secretFile:4:s:o
  secretRef:5:@core/v1.SecretReference:p,o readOnly:6:b:o
core/v1.CephFSVolumeSource monitors:1:[]s:L=atomic path:2:s:o user:3:s:o secretFile:4:s:o
  secretRef:5:@core/v1.LocalObjectReference:p,o readOnly:6:b:o
core/v1.CinderPersistentVolumeSource volumeID:1:s fsType:2:s:o readOnly:3:b:o
  secretRef:4:@core/v1.SecretReference:p,o
core/v1.CinderVolumeSource volumeID:1:s fsType:2:s:o readOnly:3:b:o
  secretRef:4:@core/v1.LocalObjectReference:p,o
core/v1.ClientIPConfig timeoutSeconds:1:i:p,o
core/v1.ClusterTrustBundleProjection name:1:s:p,o signerName:2:s:p,o
  labelSelector:3:@meta/v1.LabelSelector:p,o optional:5:b:p,o path:4:s
core/v1.ComponentCondition type:1:s status:2:s message:3:s:o error:4:s:o
core/v1.ComponentStatus metadata:1:@meta/v1.ObjectMeta:o
  conditions:2:[]@core/v1.ComponentCondition:o,L=map,M=type,P=merge,K=type
core/v1.ConfigMap metadata:1:@meta/v1.ObjectMeta:o immutable:4:b:p,o data:2:{}s:o
  binaryData:3:{}y:o
core/v1.ConfigMapEnvSource -:1:@core/v1.LocalObjectReference:n optional:2:b:p,o
core/v1.ConfigMapKeySelector! -:1:@core/v1.LocalObjectReference:n key:2:s optional:3:b:p,o
core/v1.ConfigMapNodeConfigSource namespace:1:s name:2:s uid:3:s:o resourceVersion:4:s:o
  kubeletConfigKey:5:s
core/v1.ConfigMapProjection -:1:@core/v1.LocalObjectReference:n
  items:2:[]@core/v1.KeyToPath:o,L=atomic optional:4:b:p,o
core/v1.ConfigMapVolumeSource -:1:@core/v1.LocalObjectReference:n
  items:2:[]@core/v1.KeyToPath:o,L=atomic defaultMode:3:i:p,o optional:4:b:p,o
core/v1.Container name:1:s image:2:s:o command:3:[]s:o,L=atomic args:4:[]s:o,L=atomic
  workingDir:5:s:o
  ports:6:[]@core/v1.ContainerPort:o,L=map,M=containerPort+protocol,P=merge,K=containerPort
  envFrom:19:[]@core/v1.EnvFromSource:o,L=atomic
  env:7:[]@core/v1.EnvVar:o,L=map,M=name,P=merge,K=name resources:8:@core/v1.ResourceRequirements:o
  resizePolicy:23:[]@core/v1.ContainerResizePolicy:o,L=atomic restartPolicy:24:s:p,o
  volumeMounts:9:[]@core/v1.VolumeMount:o,L=map,M=mountPath,P=merge,K=mountPath
  volumeDevices:21:[]@core/v1.VolumeDevice:o,L=map,M=devicePath,P=merge,K=devicePath
  livenessProbe:10:@core/v1.Probe:p,o readinessProbe:11:@core/v1.Probe:p,o
  startupProbe:22:@core/v1.Probe:p,o lifecycle:12:@core/v1.Lifecycle:p,o
  terminationMessagePath:13:s:o terminationMessagePolicy:20:s:o imagePullPolicy:14:s:o
  securityContext:15:@core/v1.SecurityContext:p,o stdin:16:b:o stdinOnce:17:b:o tty:18:b:o
core/v1.ContainerImage names:1:[]s:L=atomic sizeBytes:2:i:o
core/v1.ContainerPort name:1:s:o hostPort:2:i:o containerPort:3:i protocol:4:s:o hostIP:5:s:o
core/v1.ContainerResizePolicy resourceName:1:s restartPolicy:2:s
core/v1.ContainerState waiting:1:@core/v1.ContainerStateWaiting:p,o
  running:2:@core/v1.ContainerStateRunning:p,o terminated:3:@core/v1.ContainerStateTerminated:p,o
core/v1.ContainerStateRunning startedAt:1:t:o
core/v1.ContainerStateTerminated exitCode:1:i signal:2:i:o reason:3:s:o message:4:s:o
  startedAt:5:t:o finishedAt:6:t:o containerID:7:s:o
core/v1.ContainerStateWaiting reason:1:s:o message:2:s:o
core/v1.ContainerStatus name:1:s state:2:@core/v1.ContainerState:o
  lastState:3:@core/v1.ContainerState:o ready:4:b restartCount:5:i image:6:s imageID:7:s
  containerID:8:s:o started:9:b:p,o allocatedResources:10:{}q:o
  resources:11:@core/v1.ResourceRequirements:p,o
  volumeMounts:12:[]@core/v1.VolumeMountStatus:o,L=map,M=mountPath,P=merge,K=mountPath
  user:13:@core/v1.ContainerUser:p,o
  allocatedResourcesStatus:14:[]@core/v1.ResourceStatus:o,L=map,M=name,P=merge,K=name
core/v1.ContainerUser linux:1:@core/v1.LinuxContainerUser:p,o
core/v1.DaemonEndpoint Port:1:i
core/v1.DownwardAPIProjection items:1:[]@core/v1.DownwardAPIVolumeFile:o,L=atomic
core/v1.DownwardAPIVolumeFile path:1:s fieldRef:2:@core/v1.ObjectFieldSelector:p,o
  resourceFieldRef:3:@core/v1.ResourceFieldSelector:p,o mode:4:i:p,o
core/v1.DownwardAPIVolumeSource items:1:[]@core/v1.DownwardAPIVolumeFile:o,L=atomic
  defaultMode:2:i:p,o
core/v1.EmptyDirVolumeSource medium:1:s:o sizeLimit:2:q:p,o
core/v1.EndpointAddress! ip:1:s hostname:3:s:o nodeName:4:s:p,o
  targetRef:2:@core/v1.ObjectReference:p,o
core/v1.EndpointPort! name:1:s:o port:2:i protocol:3:s:o appProtocol:4:s:p,o
core/v1.EndpointSubset addresses:1:[]@core/v1.EndpointAddress:o,L=atomic
  notReadyAddresses:2:[]@core/v1.EndpointAddress:o,L=atomic
  ports:3:[]@core/v1.EndpointPort:o,L=atomic
core/v1.Endpoints metadata:1:@meta/v1.ObjectMeta:o subsets:2:[]@core/v1.EndpointSubset:o,L=atomic
core/v1.EnvFromSource prefix:1:s:o configMapRef:2:@core/v1.ConfigMapEnvSource:p,o
  secretRef:3:@core/v1.SecretEnvSource:p,o
core/v1.EnvVar name:1:s value:2:s:o valueFrom:3:@core/v1.EnvVarSource:p,o
core/v1.EnvVarSource fieldRef:1:@core/v1.ObjectFieldSelector:p,o
  resourceFieldRef:2:@core/v1.ResourceFieldSelector:p,o
  configMapKeyRef:3:@core/v1.ConfigMapKeySelector:p,o secretKeyRef:4:@core/v1.SecretKeySelector:p,o
core/v1.EphemeralContainer -:1:@core/v1.EphemeralContainerCommon:n targetContainerName:2:s:o
core/v1.EphemeralContainerCommon name:1:s image:2:s:o command:3:[]s:o,L=atomic
  args:4:[]s:o,L=atomic workingDir:5:s:o
  ports:6:[]@core/v1.ContainerPort:o,L=map,M=containerPort+protocol,P=merge,K=containerPort
  envFrom:19:[]@core/v1.EnvFromSource:o,L=atomic
  env:7:[]@core/v1.EnvVar:o,L=map,M=name,P=merge,K=name resources:8:@core/v1.ResourceRequirements:o
  resizePolicy:23:[]@core/v1.ContainerResizePolicy:o,L=atomic restartPolicy:24:s:p,o
  volumeMounts:9:[]@core/v1.VolumeMount:o,L=map,M=mountPath,P=merge,K=mountPath
  volumeDevices:21:[]@core/v1.VolumeDevice:o,L=map,M=devicePath,P=merge,K=devicePath
  livenessProbe:10:@core/v1.Probe:p,o readinessProbe:11:@core/v1.Probe:p,o
  startupProbe:22:@core/v1.Probe:p,o lifecycle:12:@core/v1.Lifecycle:p,o
  terminationMessagePath:13:s:o terminationMessagePolicy:20:s:o imagePullPolicy:14:s:o
  securityContext:15:@core/v1.SecurityContext:p,o stdin:16:b:o stdinOnce:17:b:o tty:18:b:o
core/v1.EphemeralVolumeSource volumeClaimTemplate:1:@core/v1.PersistentVolumeClaimTemplate:p,o
core/v1.Event metadata:1:@meta/v1.ObjectMeta involvedObject:2:@core/v1.ObjectReference reason:3:s:o
  message:4:s:o source:5:@core/v1.EventSource:o firstTimestamp:6:t:o lastTimestamp:7:t:o
  count:8:i:o type:9:s:o eventTime:10:m:o series:11:@core/v1.EventSeries:p,o action:12:s:o
  related:13:@core/v1.ObjectReference:p,o reportingComponent:14:s reportingInstance:15:s
core/v1.EventSeries count:1:i:o lastObservedTime:2:m:o
core/v1.EventSource component:1:s:o host:2:s:o
core/v1.ExecAction command:1:[]s:o,L=atomic
core/v1.FCVolumeSource targetWWNs:1:[]s:o,L=atomic lun:2:i:p,o fsType:3:s:o readOnly:4:b:o
  wwids:5:[]s:o,L=atomic
core/v1.FlexPersistentVolumeSource driver:1:s fsType:2:s:o secretRef:3:@core/v1.SecretReference:p,o
  readOnly:4:b:o options:5:{}s:o
core/v1.FlexVolumeSource driver:1:s fsType:2:s:o secretRef:3:@core/v1.LocalObjectReference:p,o
  readOnly:4:b:o options:5:{}s:o
core/v1.FlockerVolumeSource datasetName:1:s:o datasetUUID:2:s:o
core/v1.GCEPersistentDiskVolumeSource pdName:1:s fsType:2:s:o partition:3:i:o readOnly:4:b:o
core/v1.GRPCAction port:1:i service:2:s:p
core/v1.GitRepoVolumeSource repository:1:s revision:2:s:o directory:3:s:o
core/v1.GlusterfsPersistentVolumeSource endpoints:1:s path:2:s readOnly:3:b:o
  endpointsNamespace:4:s:p,o
core/v1.GlusterfsVolumeSource endpoints:1:s path:2:s readOnly:3:b:o
core/v1.HTTPGetAction path:1:s:o port:2:io host:3:s:o scheme:4:s:o
  httpHeaders:5:[]@core/v1.HTTPHeader:o,L=atomic
core/v1.HTTPHeader name:1:s value:2:s
core/v1.HostAlias ip:1:s hostnames:2:[]s:o,L=atomic
core/v1.HostIP ip:1:s
core/v1.HostPathVolumeSource path:1:s type:2:s:p,o
core/v1.ISCSIPersistentVolumeSource targetPortal:1:s iqn:2:s lun:3:i iscsiInterface:4:s:o
  fsType:5:s:o readOnly:6:b:o portals:7:[]s:o,L=atomic chapAuthDiscovery:8:b:o
  chapAuthSession:11:b:o secretRef:10:@core/v1.SecretReference:p,o initiatorName:12:s:p,o
core/v1.ISCSIVolumeSource targetPortal:1:s iqn:2:s lun:3:i iscsiInterface:4:s:o fsType:5:s:o
  readOnly:6:b:o portals:7:[]s:o,L=atomic chapAuthDiscovery:8:b:o chapAuthSession:11:b:o
  secretRef:10:@core/v1.LocalObjectReference:p,o initiatorName:12:s:p,o
core/v1.ImageVolumeSource reference:1:s:o pullPolicy:2:s:o
core/v1.KeyToPath key:1:s path:2:s mode:3:i:p,o
core/v1.Lifecycle postStart:1:@core/v1.LifecycleHandler:p,o preStop:2:@core/v1.LifecycleHandler:p,o
core/v1.LifecycleHandler exec:1:@core/v1.ExecAction:p,o httpGet:2:@core/v1.HTTPGetAction:p,o
  tcpSocket:3:@core/v1.TCPSocketAction:p,o sleep:4:@core/v1.SleepAction:p,o
core/v1.LimitRange metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.LimitRangeSpec:o
core/v1.LimitRangeItem type:1:s max:2:{}q:o min:3:{}q:o default:4:{}q:o defaultRequest:5:{}q:o
  maxLimitRequestRatio:6:{}q:o
core/v1.LimitRangeSpec limits:1:[]@core/v1.LimitRangeItem:L=atomic
core/v1.LinuxContainerUser uid:1:i gid:2:i supplementalGroups:3:[]i:o,L=atomic
core/v1.LoadBalancerIngress ip:1:s:o hostname:2:s:o ipMode:3:s:p,o
  ports:4:[]@core/v1.PortStatus:o,L=atomic
core/v1.LoadBalancerStatus ingress:1:[]@core/v1.LoadBalancerIngress:o,L=atomic
core/v1.LocalObjectReference! name:1:s:o
core/v1.LocalVolumeSource path:1:s fsType:2:s:p,o
core/v1.ModifyVolumeStatus targetVolumeAttributesClassName:1:s:o status:2:s
core/v1.NFSVolumeSource server:1:s path:2:s readOnly:3:b:o
core/v1.Namespace metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.NamespaceSpec:o
  status:3:@core/v1.NamespaceStatus:o
core/v1.NamespaceCondition type:1:s status:2:s lastTransitionTime:4:t:o reason:5:s:o message:6:s:o
core/v1.NamespaceSpec finalizers:1:[]s:o,L=atomic
core/v1.NamespaceStatus phase:1:s:o
  conditions:2:[]@core/v1.NamespaceCondition:o,L=map,M=type,P=merge,K=type
core/v1.Node metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.NodeSpec:o
  status:3:@core/v1.NodeStatus:o
core/v1.NodeAddress type:1:s address:2:s
core/v1.NodeAffinity requiredDuringSchedulingIgnoredDuringExecution:1:@core/v1.NodeSelector:p,o
  preferredDuringSchedulingIgnoredDuringExecution:2:[]@core/v1.PreferredSchedulingTerm:o,L=atomic
core/v1.NodeCondition type:1:s status:2:s lastHeartbeatTime:3:t:o lastTransitionTime:4:t:o
  reason:5:s:o message:6:s:o
core/v1.NodeConfigSource configMap:2:@core/v1.ConfigMapNodeConfigSource:p,o
core/v1.NodeConfigStatus assigned:1:@core/v1.NodeConfigSource:p,o
  active:2:@core/v1.NodeConfigSource:p,o lastKnownGood:3:@core/v1.NodeConfigSource:p,o error:4:s:o
core/v1.NodeDaemonEndpoints kubeletEndpoint:1:@core/v1.DaemonEndpoint:o
core/v1.NodeFeatures supplementalGroupsPolicy:1:b:p,o
core/v1.NodeRuntimeHandler name:1:s features:2:@core/v1.NodeRuntimeHandlerFeatures:p,o
core/v1.NodeRuntimeHandlerFeatures recursiveReadOnlyMounts:1:b:p,o userNamespaces:2:b:p,o
core/v1.NodeSelector! nodeSelectorTerms:1:[]@core/v1.NodeSelectorTerm:L=atomic
core/v1.NodeSelectorRequirement key:1:s operator:2:s values:3:[]s:o,L=atomic
core/v1.NodeSelectorTerm! matchExpressions:1:[]@core/v1.NodeSelectorRequirement:o,L=atomic
  matchFields:2:[]@core/v1.NodeSelectorRequirement:o,L=atomic
core/v1.NodeSpec podCIDR:1:s:o podCIDRs:7:[]s:o,L=set,P=merge providerID:3:s:o unschedulable:4:b:o
  taints:5:[]@core/v1.Taint:o,L=atomic configSource:6:@core/v1.NodeConfigSource:p,o
  externalID:2:s:o
core/v1.NodeStatus capacity:1:{}q:o allocatable:2:{}q:o phase:3:s:o
  conditions:4:[]@core/v1.NodeCondition:o,L=map,M=type,P=merge,K=type
  addresses:5:[]@core/v1.NodeAddress:o,L=map,M=type,P=merge,K=type
  daemonEndpoints:6:@core/v1.NodeDaemonEndpoints:o nodeInfo:7:@core/v1.NodeSystemInfo:o
  images:8:[]@core/v1.ContainerImage:o,L=atomic volumesInUse:9:[]s:o,L=atomic
  volumesAttached:10:[]@core/v1.AttachedVolume:o,L=atomic config:11:@core/v1.NodeConfigStatus:p,o
  runtimeHandlers:12:[]@core/v1.NodeRuntimeHandler:o,L=atomic features:13:@core/v1.NodeFeatures:p,o
core/v1.NodeSystemInfo machineID:1:s systemUUID:2:s bootID:3:s kernelVersion:4:s osImage:5:s
  containerRuntimeVersion:6:s kubeletVersion:7:s kubeProxyVersion:8:s operatingSystem:9:s
  architecture:10:s
core/v1.ObjectFieldSelector! apiVersion:1:s:o fieldPath:2:s
core/v1.ObjectReference! kind:1:s:o namespace:2:s:o name:3:s:o uid:4:s:o apiVersion:5:s:o
  resourceVersion:6:s:o fieldPath:7:s:o
core/v1.PersistentVolume metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.PersistentVolumeSpec:o
  status:3:@core/v1.PersistentVolumeStatus:o
core/v1.PersistentVolumeClaim metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@core/v1.PersistentVolumeClaimSpec:o status:3:@core/v1.PersistentVolumeClaimStatus:o
core/v1.PersistentVolumeClaimCondition type:1:s status:2:s lastProbeTime:3:t:o
  lastTransitionTime:4:t:o reason:5:s:o message:6:s:o
core/v1.PersistentVolumeClaimSpec accessModes:1:[]s:o,L=atomic
  selector:4:@meta/v1.LabelSelector:p,o resources:2:@core/v1.VolumeResourceRequirements:o
  volumeName:3:s:o storageClassName:5:s:p,o volumeMode:6:s:p,o
  dataSource:7:@core/v1.TypedLocalObjectReference:p,o
  dataSourceRef:8:@core/v1.TypedObjectReference:p,o volumeAttributesClassName:9:s:p,o
core/v1.PersistentVolumeClaimStatus phase:1:s:o accessModes:2:[]s:o,L=atomic capacity:3:{}q:o
  conditions:4:[]@core/v1.PersistentVolumeClaimCondition:o,L=map,M=type,P=merge,K=type
  allocatedResources:5:{}q:o allocatedResourceStatuses:7:{}s:o,T=granular
  currentVolumeAttributesClassName:8:s:p,o modifyVolumeStatus:9:@core/v1.ModifyVolumeStatus:p,o
core/v1.PersistentVolumeClaimTemplate metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@core/v1.PersistentVolumeClaimSpec
core/v1.PersistentVolumeClaimVolumeSource claimName:1:s readOnly:2:b:o
core/v1.PersistentVolumeSource gcePersistentDisk:1:@core/v1.GCEPersistentDiskVolumeSource:p,o
  awsElasticBlockStore:2:@core/v1.AWSElasticBlockStoreVolumeSource:p,o
  hostPath:3:@core/v1.HostPathVolumeSource:p,o
  glusterfs:4:@core/v1.GlusterfsPersistentVolumeSource:p,o nfs:5:@core/v1.NFSVolumeSource:p,o
  rbd:6:@core/v1.RBDPersistentVolumeSource:p,o iscsi:7:@core/v1.ISCSIPersistentVolumeSource:p,o
  cinder:8:@core/v1.CinderPersistentVolumeSource:p,o
  cephfs:9:@core/v1.CephFSPersistentVolumeSource:p,o fc:10:@core/v1.FCVolumeSource:p,o
  flocker:11:@core/v1.FlockerVolumeSource:p,o flexVolume:12:@core/v1.FlexPersistentVolumeSource:p,o
  azureFile:13:@core/v1.AzureFilePersistentVolumeSource:p,o
  vsphereVolume:14:@core/v1.VsphereVirtualDiskVolumeSource:p,o
  quobyte:15:@core/v1.QuobyteVolumeSource:p,o azureDisk:16:@core/v1.AzureDiskVolumeSource:p,o
  photonPersistentDisk:17:@core/v1.PhotonPersistentDiskVolumeSource:p,o
  portworxVolume:18:@core/v1.PortworxVolumeSource:p,o
  scaleIO:19:@core/v1.ScaleIOPersistentVolumeSource:p,o local:20:@core/v1.LocalVolumeSource:p,o
  storageos:21:@core/v1.StorageOSPersistentVolumeSource:p,o
  csi:22:@core/v1.CSIPersistentVolumeSource:p,o
core/v1.PersistentVolumeSpec capacity:1:{}q:o -:2:@core/v1.PersistentVolumeSource:n
  accessModes:3:[]s:o,L=atomic claimRef:4:@core/v1.ObjectReference:p,o,T=granular
  persistentVolumeReclaimPolicy:5:s:o storageClassName:6:s:o mountOptions:7:[]s:o,L=atomic
  volumeMode:8:s:p,o nodeAffinity:9:@core/v1.VolumeNodeAffinity:p,o
  volumeAttributesClassName:10:s:p,o
core/v1.PersistentVolumeStatus phase:1:s:o message:2:s:o reason:3:s:o
  lastPhaseTransitionTime:4:t:p,o
core/v1.PhotonPersistentDiskVolumeSource pdID:1:s fsType:2:s:o
core/v1.Pod metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.PodSpec:o
  status:3:@core/v1.PodStatus:o
core/v1.PodAffinity
  requiredDuringSchedulingIgnoredDuringExecution:1:[]@core/v1.PodAffinityTerm:o,L=atomic
  preferredDuringSchedulingIgnoredDuringExecution:2:[]@core/v1.WeightedPodAffinityTerm:o,L=atomic
core/v1.PodAffinityTerm labelSelector:1:@meta/v1.LabelSelector:p,o namespaces:2:[]s:o,L=atomic
  topologyKey:3:s namespaceSelector:4:@meta/v1.LabelSelector:p,o matchLabelKeys:5:[]s:o,L=atomic
  mismatchLabelKeys:6:[]s:o,L=atomic
core/v1.PodAntiAffinity
  requiredDuringSchedulingIgnoredDuringExecution:1:[]@core/v1.PodAffinityTerm:o,L=atomic
  preferredDuringSchedulingIgnoredDuringExecution:2:[]@core/v1.WeightedPodAffinityTerm:o,L=atomic
core/v1.PodCondition type:1:s status:2:s lastProbeTime:3:t:o lastTransitionTime:4:t:o reason:5:s:o
  message:6:s:o
core/v1.PodDNSConfig nameservers:1:[]s:o,L=atomic searches:2:[]s:o,L=atomic
  options:3:[]@core/v1.PodDNSConfigOption:o,L=atomic
core/v1.PodDNSConfigOption name:1:s:o value:2:s:p,o
core/v1.PodIP ip:1:s
core/v1.PodOS name:1:s
core/v1.PodReadinessGate conditionType:1:s
core/v1.PodResourceClaim name:1:s resourceClaimName:3:s:p,o resourceClaimTemplateName:4:s:p,o
core/v1.PodResourceClaimStatus name:1:s resourceClaimName:2:s:p,o
core/v1.PodSchedulingGate name:1:s
core/v1.PodSecurityContext seLinuxOptions:1:@core/v1.SELinuxOptions:p,o
  windowsOptions:8:@core/v1.WindowsSecurityContextOptions:p,o runAsUser:2:i:p,o runAsGroup:6:i:p,o
  runAsNonRoot:3:b:p,o supplementalGroups:4:[]i:o,L=atomic supplementalGroupsPolicy:12:s:p,o
  fsGroup:5:i:p,o sysctls:7:[]@core/v1.Sysctl:o,L=atomic fsGroupChangePolicy:9:s:p,o
  seccompProfile:10:@core/v1.SeccompProfile:p,o appArmorProfile:11:@core/v1.AppArmorProfile:p,o
  seLinuxChangePolicy:13:s:p,o
core/v1.PodSpec volumes:1:[]@core/v1.Volume:o,L=map,M=name,P=merge+retainKeys,K=name
  initContainers:20:[]@core/v1.Container:o,L=map,M=name,P=merge,K=name
  containers:2:[]@core/v1.Container:L=map,M=name,P=merge,K=name
  ephemeralContainers:34:[]@core/v1.EphemeralContainer:o,L=map,M=name,P=merge,K=name
  restartPolicy:3:s:o terminationGracePeriodSeconds:4:i:p,o activeDeadlineSeconds:5:i:p,o
  dnsPolicy:6:s:o nodeSelector:7:{}s:o,T=atomic serviceAccountName:8:s:o serviceAccount:9:s:o
  automountServiceAccountToken:21:b:p,o nodeName:10:s:o hostNetwork:11:b:o hostPID:12:b:o
  hostIPC:13:b:o shareProcessNamespace:27:b:p,o securityContext:14:@core/v1.PodSecurityContext:p,o
  imagePullSecrets:15:[]@core/v1.LocalObjectReference:o,L=map,M=name,P=merge,K=name hostname:16:s:o
  subdomain:17:s:o affinity:18:@core/v1.Affinity:p,o schedulerName:19:s:o
  tolerations:22:[]@core/v1.Toleration:o,L=atomic
  hostAliases:23:[]@core/v1.HostAlias:o,L=map,M=ip,P=merge,K=ip priorityClassName:24:s:o
  priority:25:i:p,o dnsConfig:26:@core/v1.PodDNSConfig:p,o
  readinessGates:28:[]@core/v1.PodReadinessGate:o,L=atomic runtimeClassName:29:s:p,o
  enableServiceLinks:30:b:p,o preemptionPolicy:31:s:p,o overhead:32:{}q:o
  topologySpreadConstraints:33:[]@core/v1.TopologySpreadConstraint:o,L=map,M=topologyKey+whenUnsatisfiable,P=merge,K=topologyKey
  setHostnameAsFQDN:35:b:p,o os:36:@core/v1.PodOS:p,o hostUsers:37:b:p,o
  schedulingGates:38:[]@core/v1.PodSchedulingGate:o,L=map,M=name,P=merge,K=name
  resourceClaims:39:[]@core/v1.PodResourceClaim:o,L=map,M=name,P=merge+retainKeys,K=name
  resources:40:@core/v1.ResourceRequirements:p,o
core/v1.PodStatus phase:1:s:o conditions:2:[]@core/v1.PodCondition:o,L=map,M=type,P=merge,K=type
  message:3:s:o reason:4:s:o nominatedNodeName:11:s:o hostIP:5:s:o
  hostIPs:16:[]@core/v1.HostIP:o,L=atomic,P=merge,K=ip podIP:6:s:o
  podIPs:12:[]@core/v1.PodIP:o,L=map,M=ip,P=merge,K=ip startTime:7:t:p,o
  initContainerStatuses:10:[]@core/v1.ContainerStatus:o,L=atomic
  containerStatuses:8:[]@core/v1.ContainerStatus:o,L=atomic qosClass:9:s:o
  ephemeralContainerStatuses:13:[]@core/v1.ContainerStatus:o,L=atomic resize:14:s:o
  resourceClaimStatuses:15:[]@core/v1.PodResourceClaimStatus:o,L=map,M=name,P=merge+retainKeys,K=name
core/v1.PodStatusResult metadata:1:@meta/v1.ObjectMeta:o status:2:@core/v1.PodStatus:o
core/v1.PodTemplate metadata:1:@meta/v1.ObjectMeta:o template:2:@core/v1.PodTemplateSpec:o
core/v1.PodTemplateSpec metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.PodSpec:o
core/v1.PortStatus port:1:i protocol:2:s error:3:s:p,o
core/v1.PortworxVolumeSource volumeID:1:s fsType:2:s:o readOnly:3:b:o
core/v1.PreferredSchedulingTerm weight:1:i preference:2:@core/v1.NodeSelectorTerm
core/v1.Probe -:1:@core/v1.ProbeHandler:n initialDelaySeconds:2:i:o timeoutSeconds:3:i:o
  periodSeconds:4:i:o successThreshold:5:i:o failureThreshold:6:i:o
  terminationGracePeriodSeconds:7:i:p,o
core/v1.ProbeHandler exec:1:@core/v1.ExecAction:p,o httpGet:2:@core/v1.HTTPGetAction:p,o
  tcpSocket:3:@core/v1.TCPSocketAction:p,o grpc:4:@core/v1.GRPCAction:p,o
core/v1.ProjectedVolumeSource sources:1:[]@core/v1.VolumeProjection:L=atomic defaultMode:2:i:p,o
core/v1.QuobyteVolumeSource registry:1:s volume:2:s readOnly:3:b:o user:4:s:o group:5:s:o
  tenant:6:s:o
core/v1.RBDPersistentVolumeSource monitors:1:[]s:L=atomic image:2:s fsType:3:s:o pool:4:s:o
  user:5:s:o keyring:6:s:o secretRef:7:@core/v1.SecretReference:p,o readOnly:8:b:o
core/v1.RBDVolumeSource monitors:1:[]s:L=atomic image:2:s fsType:3:s:o pool:4:s:o user:5:s:o
  keyring:6:s:o secretRef:7:@core/v1.LocalObjectReference:p,o readOnly:8:b:o
core/v1.RangeAllocation metadata:1:@meta/v1.ObjectMeta:o range:2:s data:3:y
core/v1.ReplicationController metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@core/v1.ReplicationControllerSpec:o status:3:@core/v1.ReplicationControllerStatus:o
core/v1.ReplicationControllerCondition type:1:s status:2:s lastTransitionTime:3:t:o reason:4:s:o
  message:5:s:o
core/v1.ReplicationControllerSpec replicas:1:i:p,o minReadySeconds:4:i:o selector:2:{}s:o,T=atomic
  template:3:@core/v1.PodTemplateSpec:p,o
core/v1.ReplicationControllerStatus replicas:1:i fullyLabeledReplicas:2:i:o readyReplicas:4:i:o
  availableReplicas:5:i:o observedGeneration:3:i:o
  conditions:6:[]@core/v1.ReplicationControllerCondition:o,L=map,M=type,P=merge,K=type
core/v1.ResourceClaim name:1:s request:2:s:o
core/v1.ResourceFieldSelector! containerName:1:s:o resource:2:s divisor:3:q:o
core/v1.ResourceHealth resourceID:1:s health:2:s:o
core/v1.ResourceQuota metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.ResourceQuotaSpec:o
  status:3:@core/v1.ResourceQuotaStatus:o
core/v1.ResourceQuotaSpec hard:1:{}q:o scopes:2:[]s:o,L=atomic
  scopeSelector:3:@core/v1.ScopeSelector:p,o
core/v1.ResourceQuotaStatus hard:1:{}q:o used:2:{}q:o
core/v1.ResourceRequirements limits:1:{}q:o requests:2:{}q:o
  claims:3:[]@core/v1.ResourceClaim:o,L=map,M=name
core/v1.ResourceStatus name:1:s resources:2:[]@core/v1.ResourceHealth:o,L=map,M=resourceID
core/v1.SELinuxOptions user:1:s:o role:2:s:o type:3:s:o level:4:s:o
core/v1.ScaleIOPersistentVolumeSource gateway:1:s system:2:s secretRef:3:@core/v1.SecretReference:p
  sslEnabled:4:b:o protectionDomain:5:s:o storagePool:6:s:o storageMode:7:s:o volumeName:8:s:o
  fsType:9:s:o readOnly:10:b:o
core/v1.ScaleIOVolumeSource gateway:1:s system:2:s secretRef:3:@core/v1.LocalObjectReference:p
  sslEnabled:4:b:o protectionDomain:5:s:o storagePool:6:s:o storageMode:7:s:o volumeName:8:s:o
  fsType:9:s:o readOnly:10:b:o
core/v1.ScopeSelector! matchExpressions:1:[]@core/v1.ScopedResourceSelectorRequirement:o,L=atomic
core/v1.ScopedResourceSelectorRequirement scopeName:1:s operator:2:s values:3:[]s:o,L=atomic
core/v1.SeccompProfile type:1:s localhostProfile:2:s:p,o
core/v1.Secret metadata:1:@meta/v1.ObjectMeta:o immutable:5:b:p,o data:2:{}y:o stringData:4:{}s:o
  type:3:s:o
core/v1.SecretEnvSource -:1:@core/v1.LocalObjectReference:n optional:2:b:p,o
core/v1.SecretKeySelector! -:1:@core/v1.LocalObjectReference:n key:2:s optional:3:b:p,o
core/v1.SecretProjection -:1:@core/v1.LocalObjectReference:n
  items:2:[]@core/v1.KeyToPath:o,L=atomic optional:4:b:p,o
core/v1.SecretReference! name:1:s:o namespace:2:s:o
core/v1.SecretVolumeSource secretName:1:s:o items:2:[]@core/v1.KeyToPath:o,L=atomic
  defaultMode:3:i:p,o optional:4:b:p,o
core/v1.SecurityContext capabilities:1:@core/v1.Capabilities:p,o privileged:2:b:p,o
  seLinuxOptions:3:@core/v1.SELinuxOptions:p,o
  windowsOptions:10:@core/v1.WindowsSecurityContextOptions:p,o runAsUser:4:i:p,o runAsGroup:8:i:p,o
  runAsNonRoot:5:b:p,o readOnlyRootFilesystem:6:b:p,o allowPrivilegeEscalation:7:b:p,o
  procMount:9:s:p,o seccompProfile:11:@core/v1.SeccompProfile:p,o
  appArmorProfile:12:@core/v1.AppArmorProfile:p,o
core/v1.Service metadata:1:@meta/v1.ObjectMeta:o spec:2:@core/v1.ServiceSpec:o
  status:3:@core/v1.ServiceStatus:o
core/v1.ServiceAccount metadata:1:@meta/v1.ObjectMeta:o
  secrets:2:[]@core/v1.ObjectReference:o,L=map,M=name,P=merge,K=name
  imagePullSecrets:3:[]@core/v1.LocalObjectReference:o,L=atomic
  automountServiceAccountToken:4:b:p,o
core/v1.ServiceAccountTokenProjection audience:1:s:o expirationSeconds:2:i:p,o path:3:s
core/v1.ServicePort name:1:s:o protocol:2:s:o appProtocol:6:s:p,o port:3:i targetPort:4:io:o
  nodePort:5:i:o
core/v1.ServiceSpec ports:1:[]@core/v1.ServicePort:o,L=map,M=port+protocol,P=merge,K=port
  selector:2:{}s:o,T=atomic clusterIP:3:s:o clusterIPs:18:[]s:o,L=atomic type:4:s:o
  externalIPs:5:[]s:o,L=atomic sessionAffinity:7:s:o loadBalancerIP:8:s:o
  loadBalancerSourceRanges:9:[]s:o,L=atomic externalName:10:s:o externalTrafficPolicy:11:s:o
  healthCheckNodePort:12:i:o publishNotReadyAddresses:13:b:o
  sessionAffinityConfig:14:@core/v1.SessionAffinityConfig:p,o ipFamilies:19:[]s:o,L=atomic
  ipFamilyPolicy:17:s:p,o allocateLoadBalancerNodePorts:20:b:p,o loadBalancerClass:21:s:p,o
  internalTrafficPolicy:22:s:p,o trafficDistribution:23:s:p,o
core/v1.ServiceStatus loadBalancer:1:@core/v1.LoadBalancerStatus:o
  conditions:2:[]@meta/v1.Condition:o,L=map,M=type,P=merge,K=type
core/v1.SessionAffinityConfig clientIP:1:@core/v1.ClientIPConfig:p,o
core/v1.SleepAction seconds:1:i
core/v1.StorageOSPersistentVolumeSource volumeName:1:s:o volumeNamespace:2:s:o fsType:3:s:o
  readOnly:4:b:o secretRef:5:@core/v1.ObjectReference:p,o
core/v1.StorageOSVolumeSource volumeName:1:s:o volumeNamespace:2:s:o fsType:3:s:o readOnly:4:b:o
  secretRef:5:@core/v1.LocalObjectReference:p,o
core/v1.Sysctl name:1:s value:2:s
core/v1.TCPSocketAction port:1:io host:2:s:o
core/v1.Taint key:1:s value:2:s:o effect:3:s timeAdded:4:t:p,o
core/v1.Toleration key:1:s:o operator:2:s:o value:3:s:o effect:4:s:o tolerationSeconds:5:i:p,o
core/v1.TopologySelectorLabelRequirement key:1:s values:2:[]s:L=atomic
core/v1.TopologySelectorTerm!
  matchLabelExpressions:1:[]@core/v1.TopologySelectorLabelRequirement:o,L=atomic
core/v1.TopologySpreadConstraint maxSkew:1:i topologyKey:2:s whenUnsatisfiable:3:s
  labelSelector:4:@meta/v1.LabelSelector:p,o minDomains:5:i:p,o nodeAffinityPolicy:6:s:p,o
  nodeTaintsPolicy:7:s:p,o matchLabelKeys:8:[]s:o,L=atomic
core/v1.TypedLocalObjectReference! apiGroup:1:s:p kind:2:s name:3:s
core/v1.TypedObjectReference apiGroup:1:s:p kind:2:s name:3:s namespace:4:s:p,o
core/v1.Volume name:1:s -:2:@core/v1.VolumeSource:n
core/v1.VolumeDevice name:1:s devicePath:2:s
core/v1.VolumeMount name:1:s readOnly:2:b:o recursiveReadOnly:7:s:p,o mountPath:3:s subPath:4:s:o
  mountPropagation:5:s:p,o subPathExpr:6:s:o
core/v1.VolumeMountStatus name:1:s mountPath:2:s readOnly:3:b:o recursiveReadOnly:4:s:p,o
core/v1.VolumeNodeAffinity required:1:@core/v1.NodeSelector:p,o
core/v1.VolumeProjection secret:1:@core/v1.SecretProjection:p,o
  downwardAPI:2:@core/v1.DownwardAPIProjection:p,o configMap:3:@core/v1.ConfigMapProjection:p,o
  serviceAccountToken:4:@core/v1.ServiceAccountTokenProjection:p,o
  clusterTrustBundle:5:@core/v1.ClusterTrustBundleProjection:p,o
core/v1.VolumeResourceRequirements limits:1:{}q:o requests:2:{}q:o
core/v1.VolumeSource hostPath:1:@core/v1.HostPathVolumeSource:p,o
  emptyDir:2:@core/v1.EmptyDirVolumeSource:p,o
  gcePersistentDisk:3:@core/v1.GCEPersistentDiskVolumeSource:p,o
  awsElasticBlockStore:4:@core/v1.AWSElasticBlockStoreVolumeSource:p,o
  gitRepo:5:@core/v1.GitRepoVolumeSource:p,o secret:6:@core/v1.SecretVolumeSource:p,o
  nfs:7:@core/v1.NFSVolumeSource:p,o iscsi:8:@core/v1.ISCSIVolumeSource:p,o
  glusterfs:9:@core/v1.GlusterfsVolumeSource:p,o
  persistentVolumeClaim:10:@core/v1.PersistentVolumeClaimVolumeSource:p,o
  rbd:11:@core/v1.RBDVolumeSource:p,o flexVolume:12:@core/v1.FlexVolumeSource:p,o
  cinder:13:@core/v1.CinderVolumeSource:p,o cephfs:14:@core/v1.CephFSVolumeSource:p,o
  flocker:15:@core/v1.FlockerVolumeSource:p,o downwardAPI:16:@core/v1.DownwardAPIVolumeSource:p,o
  fc:17:@core/v1.FCVolumeSource:p,o azureFile:18:@core/v1.AzureFileVolumeSource:p,o
  configMap:19:@core/v1.ConfigMapVolumeSource:p,o
  vsphereVolume:20:@core/v1.VsphereVirtualDiskVolumeSource:p,o
  quobyte:21:@core/v1.QuobyteVolumeSource:p,o azureDisk:22:@core/v1.AzureDiskVolumeSource:p,o
  photonPersistentDisk:23:@core/v1.PhotonPersistentDiskVolumeSource:p,o
  projected:26:@core/v1.ProjectedVolumeSource:p,o
  portworxVolume:24:@core/v1.PortworxVolumeSource:p,o scaleIO:25:@core/v1.ScaleIOVolumeSource:p,o
  storageos:27:@core/v1.StorageOSVolumeSource:p,o csi:28:@core/v1.CSIVolumeSource:p,o
  ephemeral:29:@core/v1.EphemeralVolumeSource:p,o image:30:@core/v1.ImageVolumeSource:p,o
core/v1.VsphereVirtualDiskVolumeSource volumePath:1:s fsType:2:s:o storagePolicyName:3:s:o
  storagePolicyID:4:s:o
core/v1.WeightedPodAffinityTerm weight:1:i podAffinityTerm:2:@core/v1.PodAffinityTerm
core/v1.WindowsSecurityContextOptions gmsaCredentialSpecName:1:s:p,o gmsaCredentialSpec:2:s:p,o
  runAsUserName:3:s:p,o hostProcess:4:b:p,o
discovery/v1.Endpoint addresses:1:[]s:L=set conditions:2:@discovery/v1.EndpointConditions:o
  hostname:3:s:p,o targetRef:4:@core/v1.ObjectReference:p,o deprecatedTopology:5:{}s:o
  nodeName:6:s:p,o zone:7:s:p,o hints:8:@discovery/v1.EndpointHints:p,o
discovery/v1.EndpointConditions ready:1:b:p,o serving:2:b:p,o terminating:3:b:p,o
discovery/v1.EndpointHints forZones:1:[]@discovery/v1.ForZone:o,L=atomic
discovery/v1.EndpointPort! name:1:s:p,o protocol:2:s:p,o port:3:i:p,o appProtocol:4:s:p,o
discovery/v1.EndpointSlice metadata:1:@meta/v1.ObjectMeta:o addressType:4:s
  endpoints:2:[]@discovery/v1.Endpoint:L=atomic ports:3:[]@discovery/v1.EndpointPort:L=atomic
discovery/v1.ForZone name:1:s
events/v1.Event metadata:1:@meta/v1.ObjectMeta eventTime:2:m series:3:@events/v1.EventSeries:p,o
  reportingController:4:s:o reportingInstance:5:s:o action:6:s:o reason:7:s:o
  regarding:8:@core/v1.ObjectReference:o related:9:@core/v1.ObjectReference:p,o note:10:s:o
  type:11:s:o deprecatedSource:12:@core/v1.EventSource:o deprecatedFirstTimestamp:13:t:o
  deprecatedLastTimestamp:14:t:o deprecatedCount:15:i:o
events/v1.EventSeries count:1:i lastObservedTime:2:m
flowcontrol/v1.ExemptPriorityLevelConfiguration nominalConcurrencyShares:1:i:p,o
  lendablePercent:2:i:p,o
flowcontrol/v1.FlowDistinguisherMethod type:1:s
flowcontrol/v1.FlowSchema metadata:1:@meta/v1.ObjectMeta:o spec:2:@flowcontrol/v1.FlowSchemaSpec:o
  status:3:@flowcontrol/v1.FlowSchemaStatus:o
flowcontrol/v1.FlowSchemaCondition type:1:s:o status:2:s:o lastTransitionTime:3:t:o reason:4:s:o
  message:5:s:o
flowcontrol/v1.FlowSchemaSpec
  priorityLevelConfiguration:1:@flowcontrol/v1.PriorityLevelConfigurationReference
  matchingPrecedence:2:i distinguisherMethod:3:@flowcontrol/v1.FlowDistinguisherMethod:p,o
  rules:4:[]@flowcontrol/v1.PolicyRulesWithSubjects:o,L=atomic
flowcontrol/v1.FlowSchemaStatus
  conditions:1:[]@flowcontrol/v1.FlowSchemaCondition:o,L=map,M=type,P=merge,K=type
flowcontrol/v1.GroupSubject name:1:s
flowcontrol/v1.LimitResponse type:1:s queuing:2:@flowcontrol/v1.QueuingConfiguration:p,o
flowcontrol/v1.LimitedPriorityLevelConfiguration nominalConcurrencyShares:1:i:p
  limitResponse:2:@flowcontrol/v1.LimitResponse:o lendablePercent:3:i:p,o
  borrowingLimitPercent:4:i:p,o
flowcontrol/v1.NonResourcePolicyRule verbs:1:[]s:L=set nonResourceURLs:6:[]s:L=set
flowcontrol/v1.PolicyRulesWithSubjects subjects:1:[]@flowcontrol/v1.Subject:L=atomic
  resourceRules:2:[]@flowcontrol/v1.ResourcePolicyRule:o,L=atomic
  nonResourceRules:3:[]@flowcontrol/v1.NonResourcePolicyRule:o,L=atomic
flowcontrol/v1.PriorityLevelConfiguration metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@flowcontrol/v1.PriorityLevelConfigurationSpec:o
  status:3:@flowcontrol/v1.PriorityLevelConfigurationStatus:o
flowcontrol/v1.PriorityLevelConfigurationCondition type:1:s:o status:2:s:o lastTransitionTime:3:t:o
  reason:4:s:o message:5:s:o
flowcontrol/v1.PriorityLevelConfigurationReference name:1:s
flowcontrol/v1.PriorityLevelConfigurationSpec type:1:s
  limited:2:@flowcontrol/v1.LimitedPriorityLevelConfiguration:p,o
  exempt:3:@flowcontrol/v1.ExemptPriorityLevelConfiguration:p,o
flowcontrol/v1.PriorityLevelConfigurationStatus
  conditions:1:[]@flowcontrol/v1.PriorityLevelConfigurationCondition:o,L=map,M=type,P=merge,K=type
flowcontrol/v1.QueuingConfiguration queues:1:i handSize:2:i queueLengthLimit:3:i
flowcontrol/v1.ResourcePolicyRule verbs:1:[]s:L=set apiGroups:2:[]s:L=set resources:3:[]s:L=set
  clusterScope:4:b:o namespaces:5:[]s:L=set
flowcontrol/v1.ServiceAccountSubject namespace:1:s name:2:s
flowcontrol/v1.Subject kind:1:s user:2:@flowcontrol/v1.UserSubject:p,o
  group:3:@flowcontrol/v1.GroupSubject:p,o
  serviceAccount:4:@flowcontrol/v1.ServiceAccountSubject:p,o
flowcontrol/v1.UserSubject name:1:s
meta/v1.Condition type:1:s status:2:s observedGeneration:3:i:o lastTransitionTime:4:t reason:5:s
  message:6:s
meta/v1.DeleteOptions gracePeriodSeconds:1:i:p,o preconditions:2:@meta/v1.Preconditions:p,o
  orphanDependents:3:b:p,o propagationPolicy:4:s:p,o dryRun:5:[]s:o,L=atomic
  ignoreStoreReadErrorWithClusterBreakingPotential:6:b:p,o
meta/v1.FieldSelectorRequirement key:1:s operator:2:s values:3:[]s:o,L=atomic
meta/v1.LabelSelector! matchLabels:1:{}s:o
  matchExpressions:2:[]@meta/v1.LabelSelectorRequirement:o,L=atomic
meta/v1.LabelSelectorRequirement key:1:s operator:2:s values:3:[]s:o,L=atomic
meta/v1.ManagedFieldsEntry manager:1:s:o operation:2:s:o apiVersion:3:s:o time:4:t:p,o
  fieldsType:6:s:o fieldsV1:7:fv1:p,o subresource:8:s:o
meta/v1.ObjectMeta name:1:s:o generateName:2:s:o namespace:3:s:o selfLink:4:s:o uid:5:s:o
  resourceVersion:6:s:o generation:7:i:o creationTimestamp:8:t:o deletionTimestamp:9:t:p,o
  deletionGracePeriodSeconds:10:i:p,o labels:11:{}s:o annotations:12:{}s:o
  ownerReferences:13:[]@meta/v1.OwnerReference:o,L=map,M=uid,P=merge,K=uid
  finalizers:14:[]s:o,L=set,P=merge managedFields:17:[]@meta/v1.ManagedFieldsEntry:o,L=atomic
meta/v1.OwnerReference! apiVersion:5:s kind:1:s name:3:s uid:4:s controller:6:b:p,o
  blockOwnerDeletion:7:b:p,o
meta/v1.Preconditions uid:1:s:p,o resourceVersion:2:s:p,o
networking/v1.HTTPIngressPath path:1:s:o pathType:3:s:p backend:2:@networking/v1.IngressBackend
networking/v1.HTTPIngressRuleValue paths:1:[]@networking/v1.HTTPIngressPath:L=atomic
networking/v1.IPBlock cidr:1:s except:2:[]s:o,L=atomic
networking/v1.Ingress metadata:1:@meta/v1.ObjectMeta:o spec:2:@networking/v1.IngressSpec:o
  status:3:@networking/v1.IngressStatus:o
networking/v1.IngressBackend service:4:@networking/v1.IngressServiceBackend:p,o
  resource:3:@core/v1.TypedLocalObjectReference:p,o
networking/v1.IngressClass metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@networking/v1.IngressClassSpec:o
networking/v1.IngressClassParametersReference apiGroup:1:s:p,o kind:2:s name:3:s scope:4:s:p
  namespace:5:s:p,o
networking/v1.IngressClassSpec controller:1:s:o
  parameters:2:@networking/v1.IngressClassParametersReference:p,o
networking/v1.IngressLoadBalancerIngress ip:1:s:o hostname:2:s:o
  ports:4:[]@networking/v1.IngressPortStatus:o,L=atomic
networking/v1.IngressLoadBalancerStatus
  ingress:1:[]@networking/v1.IngressLoadBalancerIngress:o,L=atomic
networking/v1.IngressPortStatus port:1:i protocol:2:s error:3:s:p,o
networking/v1.IngressRule host:1:s:o -:2:@networking/v1.IngressRuleValue:n
networking/v1.IngressRuleValue http:1:@networking/v1.HTTPIngressRuleValue:p,o
networking/v1.IngressServiceBackend name:1:s port:2:@networking/v1.ServiceBackendPort:o
networking/v1.IngressSpec ingressClassName:4:s:p,o
  defaultBackend:1:@networking/v1.IngressBackend:p,o tls:2:[]@networking/v1.IngressTLS:o,L=atomic
  rules:3:[]@networking/v1.IngressRule:o,L=atomic
networking/v1.IngressStatus loadBalancer:1:@networking/v1.IngressLoadBalancerStatus:o
networking/v1.IngressTLS hosts:1:[]s:o,L=atomic secretName:2:s:o
networking/v1.NetworkPolicy metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@networking/v1.NetworkPolicySpec:o
networking/v1.NetworkPolicyEgressRule ports:1:[]@networking/v1.NetworkPolicyPort:o,L=atomic
  to:2:[]@networking/v1.NetworkPolicyPeer:o,L=atomic
networking/v1.NetworkPolicyIngressRule ports:1:[]@networking/v1.NetworkPolicyPort:o,L=atomic
  from:2:[]@networking/v1.NetworkPolicyPeer:o,L=atomic
networking/v1.NetworkPolicyPeer podSelector:1:@meta/v1.LabelSelector:p,o
  namespaceSelector:2:@meta/v1.LabelSelector:p,o ipBlock:3:@networking/v1.IPBlock:p,o
networking/v1.NetworkPolicyPort protocol:1:s:p,o port:2:io:p,o endPort:3:i:p,o
networking/v1.NetworkPolicySpec podSelector:1:@meta/v1.LabelSelector
  ingress:2:[]@networking/v1.NetworkPolicyIngressRule:o,L=atomic
  egress:3:[]@networking/v1.NetworkPolicyEgressRule:o,L=atomic policyTypes:4:[]s:o,L=atomic
networking/v1.ServiceBackendPort! name:1:s:o number:2:i:o
node/v1.Overhead podFixed:1:{}q:o
node/v1.RuntimeClass metadata:1:@meta/v1.ObjectMeta:o handler:2:s overhead:3:@node/v1.Overhead:p,o
  scheduling:4:@node/v1.Scheduling:p,o
node/v1.Scheduling nodeSelector:1:{}s:o,T=atomic tolerations:2:[]@core/v1.Toleration:o,L=atomic
policy/v1.Eviction metadata:1:@meta/v1.ObjectMeta:o deleteOptions:2:@meta/v1.DeleteOptions:p,o
policy/v1.PodDisruptionBudget metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@policy/v1.PodDisruptionBudgetSpec:o status:3:@policy/v1.PodDisruptionBudgetStatus:o
policy/v1.PodDisruptionBudgetSpec minAvailable:1:io:p,o
  selector:2:@meta/v1.LabelSelector:p,o,P=replace maxUnavailable:3:io:p,o
  unhealthyPodEvictionPolicy:4:s:p,o
policy/v1.PodDisruptionBudgetStatus observedGeneration:1:i:o disruptedPods:2:{}t:o
  disruptionsAllowed:3:i currentHealthy:4:i desiredHealthy:5:i expectedPods:6:i
  conditions:7:[]@meta/v1.Condition:o,L=map,M=type,P=merge,K=type
rbac/v1.AggregationRule clusterRoleSelectors:1:[]@meta/v1.LabelSelector:o,L=atomic
rbac/v1.ClusterRole metadata:1:@meta/v1.ObjectMeta:o rules:2:[]@rbac/v1.PolicyRule:L=atomic
  aggregationRule:3:@rbac/v1.AggregationRule:p,o
rbac/v1.ClusterRoleBinding metadata:1:@meta/v1.ObjectMeta:o
  subjects:2:[]@rbac/v1.Subject:o,L=atomic roleRef:3:@rbac/v1.RoleRef
rbac/v1.PolicyRule verbs:1:[]s:L=atomic apiGroups:2:[]s:o,L=atomic resources:3:[]s:o,L=atomic
  resourceNames:4:[]s:o,L=atomic nonResourceURLs:5:[]s:o,L=atomic
rbac/v1.Role metadata:1:@meta/v1.ObjectMeta:o rules:2:[]@rbac/v1.PolicyRule:L=atomic
rbac/v1.RoleBinding metadata:1:@meta/v1.ObjectMeta:o subjects:2:[]@rbac/v1.Subject:o,L=atomic
  roleRef:3:@rbac/v1.RoleRef
rbac/v1.RoleRef! apiGroup:1:s kind:2:s name:3:s
rbac/v1.Subject! kind:1:s apiGroup:2:s:o name:3:s namespace:4:s:o
scheduling/v1.PriorityClass metadata:1:@meta/v1.ObjectMeta:o value:2:i globalDefault:3:b:o
  description:4:s:o preemptionPolicy:5:s:p,o
storage/v1.CSIDriver metadata:1:@meta/v1.ObjectMeta:o spec:2:@storage/v1.CSIDriverSpec
storage/v1.CSIDriverSpec attachRequired:1:b:p,o podInfoOnMount:2:b:p,o
  volumeLifecycleModes:3:[]s:o,L=set storageCapacity:4:b:p,o fsGroupPolicy:5:s:p,o
  tokenRequests:6:[]@storage/v1.TokenRequest:o,L=atomic requiresRepublish:7:b:p,o
  seLinuxMount:8:b:p,o
storage/v1.CSINode metadata:1:@meta/v1.ObjectMeta:o spec:2:@storage/v1.CSINodeSpec
storage/v1.CSINodeDriver name:1:s nodeID:2:s topologyKeys:3:[]s:L=atomic
  allocatable:4:@storage/v1.VolumeNodeResources:p,o
storage/v1.CSINodeSpec drivers:1:[]@storage/v1.CSINodeDriver:L=map,M=name,P=merge,K=name
storage/v1.CSIStorageCapacity metadata:1:@meta/v1.ObjectMeta:o
  nodeTopology:2:@meta/v1.LabelSelector:p,o storageClassName:3:s capacity:4:q:p,o
  maximumVolumeSize:5:q:p,o
storage/v1.StorageClass metadata:1:@meta/v1.ObjectMeta:o provisioner:2:s parameters:3:{}s:o
  reclaimPolicy:4:s:p,o mountOptions:5:[]s:o,L=atomic allowVolumeExpansion:6:b:p,o
  volumeBindingMode:7:s:p,o allowedTopologies:8:[]@core/v1.TopologySelectorTerm:o,L=atomic
storage/v1.TokenRequest audience:1:s expirationSeconds:2:i:p,o
storage/v1.VolumeAttachment metadata:1:@meta/v1.ObjectMeta:o
  spec:2:@storage/v1.VolumeAttachmentSpec status:3:@storage/v1.VolumeAttachmentStatus:o
storage/v1.VolumeAttachmentSource persistentVolumeName:1:s:p,o
  inlineVolumeSpec:2:@core/v1.PersistentVolumeSpec:p,o
storage/v1.VolumeAttachmentSpec attacher:1:s source:2:@storage/v1.VolumeAttachmentSource
  nodeName:3:s
storage/v1.VolumeAttachmentStatus attached:1:b attachmentMetadata:2:{}s:o
  attachError:3:@storage/v1.VolumeError:p,o detachError:4:@storage/v1.VolumeError:p,o
storage/v1.VolumeError time:1:t:o message:2:s:o
storage/v1.VolumeNodeResources count:1:i:p,o
"""

KINDS = (
    "core/v1.PersistentVolume core/v1.PersistentVolumeClaim core/v1.PodStatusResult core/v1.Pod "
    "core/v1.PodTemplate core/v1.ReplicationController core/v1.Service core/v1.ServiceAccount "
    "core/v1.Endpoints core/v1.Node core/v1.Namespace core/v1.Binding core/v1.Event "
    "core/v1.LimitRange core/v1.ResourceQuota core/v1.Secret core/v1.ConfigMap "
    "core/v1.ComponentStatus core/v1.RangeAllocation apps/v1.StatefulSet apps/v1.Deployment "
    "apps/v1.DaemonSet apps/v1.ReplicaSet apps/v1.ControllerRevision batch/v1.Job "
    "batch/v1.CronJob autoscaling/v1.HorizontalPodAutoscaler autoscaling/v1.Scale "
    "autoscaling/v2.HorizontalPodAutoscaler networking/v1.NetworkPolicy networking/v1.Ingress "
    "networking/v1.IngressClass rbac/v1.Role rbac/v1.RoleBinding rbac/v1.ClusterRole "
    "rbac/v1.ClusterRoleBinding policy/v1.PodDisruptionBudget policy/v1.Eviction "
    "storage/v1.StorageClass storage/v1.VolumeAttachment storage/v1.CSIDriver "
    "storage/v1.CSINode storage/v1.CSIStorageCapacity scheduling/v1.PriorityClass "
    "coordination/v1.Lease discovery/v1.EndpointSlice events/v1.Event node/v1.RuntimeClass "
    "certificates/v1.CertificateSigningRequest authentication/v1.TokenReview "
    "authentication/v1.TokenRequest authentication/v1.SelfSubjectReview "
    "authorization/v1.SubjectAccessReview authorization/v1.SelfSubjectAccessReview "
    "authorization/v1.LocalSubjectAccessReview authorization/v1.SelfSubjectRulesReview "
    "admissionregistration/v1.ValidatingAdmissionPolicy "
    "admissionregistration/v1.ValidatingAdmissionPolicyBinding "
    "admissionregistration/v1.ValidatingWebhookConfiguration "
    "admissionregistration/v1.MutatingWebhookConfiguration flowcontrol/v1.FlowSchema "
    "flowcontrol/v1.PriorityLevelConfiguration apiregistration/v1.APIService"
)
