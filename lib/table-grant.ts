// Table actions on the table itself. `Table.grant` adds `<table>/index/*` once the table has an index, but
// no Lambda reads the listing index (only operators do, with their own credentials): least privilege, and
// no wildcard resource for cdk-nag's IAM5.
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';

export function grantOnTable(table: dynamodb.ITable, grantee: iam.IGrantable, ...actions: string[]): void {
  iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [table.tableArn] });
}
