import { option } from '../config-option.ts';

/** The REST API: where it listens and who may call it. */
export const REST_OPTIONS = [
  option('rest.port').intType().between(0, 65535).defaultValue(8081)
    .withDescription('REST API port; the next free one is taken if it is in use; 0 takes any free port.'),
  option('rest.bind-address').stringType().defaultValue('127.0.0.1').withDescription('REST API address. Beyond loopback, `rest.token` is required.'),
  option('rest.token').stringType().noDefaultValue()
    .withDescription(
      'Bearer token required for mutating REST calls. Unset: only requests addressed to 127.0.0.1, localhost or [::1] are answered, and changes from other web sites (a foreign Origin) are refused.',
    )
    .secret(),
  option('rest.token-required-for-reads').booleanType().noDefaultValue()
    .withDescription("Whether GET calls (other than the dashboard's files) need rest.token too. Unset: when rest.bind-address is beyond loopback."),
] as const;
