// stub
export default function Page() {
  return <h1>scheduler</h1>;
}
