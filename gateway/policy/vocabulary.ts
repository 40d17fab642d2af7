// The scopes and permissions of the shipped public and banking APIs. A policy naming anything else is
// rejected at load, so a typo can never silently open or close a route.

export const SCOPES = ['stats', 'products', 'events', 'sales', 'sales_refund', 'financial', 'affiliates', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];

export const PERMISSIONS = {
  view_balance: 'View balance',
  view_account_details: 'View account details',
  view_transactions: 'View transactions',
  list_dict_keys: 'List PIX keys',
  initiate_payment: 'Create transfers',
  cancel_scheduled_payments: 'Cancel scheduled payments',
  refund_transaction: 'Refund transactions',
} as const;
export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isPermission(value: string): value is Permission {
  return Object.hasOwn(PERMISSIONS, value);
}
