/** Whether a text names a time zone the runtime knows (IANA names such as UTC, Asia/Shanghai; offsets such as +08:00). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
