import { option } from '../config-option.ts';

/** The cluster secret and TLS between its processes. */
export const SECURITY_OPTIONS = [
  option('security.cluster.token').stringType().noDefaultValue()
    .withDescription(
      'The cluster secret TaskManagers and clients present to the JobManager and to each other (handshake of every internal connection; REST bearer token unless rest.token is set). Required beyond loopback.',
    ),
  option('security.cluster.token-file').stringType().noDefaultValue()
    .withDescription('A file whose first line is security.cluster.token (so the secret stays off the command line).'),
  option('security.ssl.internal.enabled').booleanType().defaultValue(false)
    .withDescription(
      "TLS with mutual authentication on the cluster's internal connections (TaskManager RPC, after its HTTP upgrade, and data between TaskManagers): every process presents security.ssl.internal.cert and accepts only peers whose certificate security.ssl.internal.trust signed.",
    ),
  option('security.ssl.internal.key').stringType().noDefaultValue().withDescription("This process's private key for internal TLS (a PEM file)."),
  option('security.ssl.internal.cert').stringType().noDefaultValue().withDescription("This process's certificate for internal TLS (a PEM file)."),
  option('security.ssl.internal.trust').stringType().noDefaultValue()
    .withDescription("The certificate authority (PEM) whose certificates internal TLS accepts: the cluster's own."),
] as const;
